package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Per-run working directories under one root ({@code cadre.tools.workspace.dir}/&lt;runId&gt;): the
 * only place the workspace tools read and write. A path a model gives is resolved inside the run's
 * directory or refused — absolute paths, {@code ..} segments and symbolic links that lead out of it
 * all end in a {@code path_outside_workspace} error naming the path, before any file is touched.
 */
public final class Workspaces {

    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");
    private static final int MAX_PATH_CHARS = 512;

    private final Path root;

    /** Workspaces under {@code root} (created when first used). */
    public Workspaces(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** The directory all runs' workspaces live in. */
    public Path root() {
        return root;
    }

    /** The run's directory, created if absent. */
    Path ofRun(String runId) throws ToolException, IOException {
        if (!RUN_ID.matcher(runId).matches()) {
            throw refused("invalid_run_id", "run id '" + runId + "' cannot name a workspace directory");
        }
        Path dir = root.resolve(runId);
        Files.createDirectories(dir);
        if (Files.isSymbolicLink(dir)) {
            throw refused("path_outside_workspace", "the workspace of run " + runId + " is a symbolic link");
        }
        return dir;
    }

    /**
     * The file {@code relative} names in the run's workspace. Every existing component of the path
     * must stay inside the workspace once links are followed; the last component need not exist yet.
     */
    Path resolve(String runId, String relative) throws ToolException, IOException {
        if (relative.isBlank() || relative.length() > MAX_PATH_CHARS || relative.indexOf('\0') >= 0) {
            throw refused(
                    "invalid_path",
                    "path '" + shorten(relative) + "' must be 1 to " + MAX_PATH_CHARS + " characters without NUL");
        }
        if (relative.startsWith("/") || relative.startsWith("\\") || relative.matches("^[A-Za-z]:.*")) {
            throw refused(
                    "path_outside_workspace",
                    "path '" + shorten(relative) + "' is absolute; give a path relative to the workspace");
        }
        Path given = Path.of(relative);
        for (Path part : given) {
            if (part.toString().equals("..")) {
                throw refused(
                        "path_outside_workspace",
                        "path '" + shorten(relative) + "' contains '..'; it must stay inside the workspace");
            }
        }
        Path workspace = ofRun(runId);
        Path real = workspace.toRealPath();
        Path target = workspace.resolve(given).normalize();
        if (!target.startsWith(workspace) || target.equals(workspace)) {
            throw refused(
                    "path_outside_workspace", "path '" + shorten(relative) + "' does not name a file in the workspace");
        }
        // Walk the existing part of the path: a link anywhere on it must not lead out of the workspace.
        Path probe = workspace;
        for (Path part : workspace.relativize(target)) {
            probe = probe.resolve(part);
            if (!Files.exists(probe, LinkOption.NOFOLLOW_LINKS)) {
                break;
            }
            if (Files.isSymbolicLink(probe)) {
                Path followed;
                try {
                    followed = probe.toRealPath();
                } catch (IOException dangling) {
                    throw refused(
                            "path_outside_workspace",
                            "path '" + shorten(relative) + "' goes through a symbolic link that leads nowhere");
                }
                if (!followed.startsWith(real)) {
                    throw refused(
                            "path_outside_workspace",
                            "path '" + shorten(relative)
                                    + "' goes through a symbolic link that leads out of the workspace");
                }
            }
        }
        return target;
    }

    static ToolException refused(String code, String message) {
        return new ToolException(FailureCategory.EXECUTION_ERROR, code, message);
    }

    private static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
