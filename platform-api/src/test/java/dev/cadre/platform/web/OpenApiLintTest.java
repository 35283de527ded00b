package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code /v3/api-docs} passes {@code spectral lint} with the OpenAPI ruleset and the OWASP API
 * security ruleset, as configured in {@code src/test/resources/spectral/.spectral.yaml} (which lists
 * and explains the findings the project accepts). {@code ./test} installs spectral with npm into
 * {@code ~/.cache/cadre-test/spectral}; {@code CADRE_TEST_SPECTRAL} names another binary.
 */
@PlatformTest
class OpenApiLintTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Path RULESET = Path.of("src", "test", "resources", "spectral", ".spectral.yaml");

    @LocalServerPort
    int port;

    static File spectral() {
        String configured = System.getenv("CADRE_TEST_SPECTRAL");
        return configured != null
                ? new File(configured)
                : new File(System.getProperty("user.home"), ".cache/cadre-test/spectral/node_modules/.bin/spectral");
    }

    @Test
    void theApiContract_passesSpectralWithTheOasAndOwaspRulesets() throws Exception {
        File spectral = spectral();
        assertThat(spectral.canExecute())
                .as("spectral missing: run ./test, which installs it (npm install --prefix"
                        + " ~/.cache/cadre-test/spectral @stoplight/spectral-cli@6.16.3"
                        + " @stoplight/spectral-owasp-ruleset@2.0.1), or set CADRE_TEST_SPECTRAL")
                .isTrue();
        String document = new Api(port).get("/v3/api-docs", Api.ADMIN_KEY).body();
        Path contract = Path.of("target", "openapi.json");
        Files.createDirectories(contract.getParent());
        Files.writeString(contract, document);
        Path report = Path.of("target", "spectral-report.json");

        ProcessBuilder lint = new ProcessBuilder(List.of(
                        spectral.getPath(),
                        "lint",
                        "--ruleset",
                        RULESET.toString(),
                        "--format",
                        "json",
                        "--output",
                        report.toString(),
                        "--fail-severity",
                        "hint",
                        contract.toString()))
                .redirectErrorStream(true);
        // The ruleset names the OWASP ruleset as a package: it is found in spectral's own node_modules.
        lint.environment()
                .put("NODE_PATH", spectral.getAbsoluteFile().getParentFile().getParent());
        Process p = lint.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();

        assertThat(report).as("spectral wrote no report:\n" + out).exists();
        JsonNode findings = JSON.readTree(report.toFile());
        Map<String, Integer> byRule = new TreeMap<>();
        List<String> lines = new ArrayList<>();
        for (JsonNode f : findings) {
            byRule.merge(f.path("code").asString(), 1, Integer::sum);
            if (lines.size() < 40) {
                lines.add(f.path("code").asString() + " at " + f.path("path") + ": "
                        + f.path("message").asString());
            }
        }
        assertThat(byRule)
                .as("spectral findings by rule (first ones: %s)%n%s", String.join("\n", lines), out)
                .isEmpty();
        assertThat(exit).as(out).isZero();
    }
}
