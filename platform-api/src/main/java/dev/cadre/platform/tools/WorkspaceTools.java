package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code workspace_read} and {@code workspace_write}: text files in the run's own workspace
 * directory ({@link Workspaces}); nothing outside it can be named. Seed 002's fork team edits its
 * files through them.
 */
final class WorkspaceTools {

    /** The most a file read or written through the tools may hold. */
    static final int MAX_FILE_BYTES = 256 * 1024;

    private static final String PATH = "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":512,"
            + "\"description\":\"file path relative to the run's workspace, e.g. src/alpha.py\"}";

    private final Workspaces workspaces;
    private final JsonMapper json;

    WorkspaceTools(Workspaces workspaces, JsonMapper json) {
        this.workspaces = workspaces;
        this.json = json;
    }

    List<Tool> tools() {
        return List.of(new Read(), new Write());
    }

    private final class Read implements Tool {
        @Override
        public String name() {
            return "workspace_read";
        }

        @Override
        public String description() {
            return "Read a text file of this run's workspace (a directory of its own). Paths are relative to it;"
                    + " absolute paths, '..' and links leading out of it are refused.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{" + PATH
                    + "},\"required\":[\"path\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            return Risk.AUTO;
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws ToolException, IOException {
            String relative = args.get("path").asString();
            Path file = workspaces.resolve(ctx.runId(), relative);
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                throw Workspaces.refused("not_a_file", "'" + relative + "' is a directory");
            }
            byte[] bytes;
            try {
                if (Files.size(file) > MAX_FILE_BYTES) {
                    throw Workspaces.refused(
                            "file_too_large", "'" + relative + "' is larger than " + MAX_FILE_BYTES + " bytes");
                }
                bytes = Files.readAllBytes(file);
            } catch (NoSuchFileException e) {
                throw Workspaces.refused("not_found", "no file '" + relative + "' in this run's workspace");
            }
            return json.createObjectNode()
                    .put("path", relative)
                    .put("bytes", bytes.length)
                    .put("content", new String(bytes, StandardCharsets.UTF_8))
                    .toString();
        }
    }

    private final class Write implements Tool {
        @Override
        public String name() {
            return "workspace_write";
        }

        @Override
        public String description() {
            return "Create or replace a text file in this run's workspace (a directory of its own). Paths are relative"
                    + " to it; absolute paths, '..' and links leading out of it are refused.";
        }

        @Override
        public JsonNode parametersSchema() {
            return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{" + PATH
                    + ",\"content\":{\"type\":\"string\",\"maxLength\":" + MAX_FILE_BYTES
                    + ",\"description\":\"the whole new content of the file\"}},"
                    + "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}");
        }

        @Override
        public Risk risk() {
            // A side effect: journalled, so a resumed run does not write twice.
            return Risk.SUGGEST;
        }

        @Override
        public String execute(JsonNode args, ToolContext ctx) throws ToolException, IOException {
            String relative = args.get("path").asString();
            byte[] content = args.get("content").asString().getBytes(StandardCharsets.UTF_8);
            if (content.length > MAX_FILE_BYTES) {
                throw Workspaces.refused("file_too_large", "content is larger than " + MAX_FILE_BYTES + " bytes");
            }
            Path file = workspaces.resolve(ctx.runId(), relative);
            Path workspace = workspaces.ofRun(ctx.runId());
            // Directories are created one by one and re-checked, so a link planted meanwhile is not followed.
            Path dir = workspace;
            for (Path part : workspace.relativize(file.getParent())) {
                dir = dir.resolve(part);
                if (Files.isSymbolicLink(dir)) {
                    throw Workspaces.refused(
                            "path_outside_workspace", "'" + relative + "' goes through a symbolic link");
                }
                if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(dir);
                }
            }
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                throw Workspaces.refused("not_a_file", "'" + relative + "' is a directory");
            }
            boolean existed = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
            Files.write(
                    file,
                    content,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            return json.createObjectNode()
                    .put("path", relative)
                    .put("bytes", content.length)
                    .put("created", !existed)
                    .toString();
        }
    }
}
