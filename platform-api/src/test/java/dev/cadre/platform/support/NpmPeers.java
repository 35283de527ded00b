package dev.cadre.platform.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The npm programs some tests talk to (the official MCP reference server, inspector and SDK client),
 * installed by {@code ./test} into a cache outside the clone: {@code CADRE_TEST_NPM_PREFIX}, default
 * {@code ~/.cache/cadre-test/npm}. A missing one fails the test with the command that installs it.
 */
public final class NpmPeers {

    /** Program name → the package (pinned as {@code ./test} installs it) that provides it. */
    private static final Map<String, String> PACKAGES = Map.of(
            "mcp-server-everything", "@modelcontextprotocol/server-everything@2026.8.31",
            "mcp-inspector", "@modelcontextprotocol/inspector@2.12.0");

    private NpmPeers() {}

    /** Where {@code ./test} installs the npm peers. */
    public static Path prefix() {
        String configured = System.getenv("CADRE_TEST_NPM_PREFIX");
        return configured != null && !configured.isBlank()
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "cadre-test", "npm");
    }

    /** The installed program {@code name} ({@code node_modules/.bin/<name>}), asserted to exist. */
    public static Path bin(String name) {
        Path bin = prefix().resolve("node_modules").resolve(".bin").resolve(name);
        String pkg = PACKAGES.getOrDefault(name, name);
        assertThat(Files.isExecutable(bin))
                .as(
                        "npm test peer %s (%s) is not installed under %s: run ./test, which installs it, or "
                                + "npm install --prefix %s %s",
                        name, pkg, prefix(), prefix(), pkg)
                .isTrue();
        return bin;
    }

    /** The installed package directory {@code node_modules/<pkg>}, asserted to exist (e.g. {@code @modelcontextprotocol/sdk}). */
    public static Path module(String pkg, String version) {
        Path dir = prefix().resolve("node_modules").resolve(pkg);
        assertThat(Files.isDirectory(dir))
                .as(
                        "npm test peer %s is not installed under %s: run ./test, which installs it, or "
                                + "npm install --prefix %s %s@%s",
                        pkg, prefix(), prefix(), pkg, version)
                .isTrue();
        return dir;
    }
}
