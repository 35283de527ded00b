package dev.cadre.platform.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The workspace pair stays inside the run's directory, whatever path a model makes up. */
class WorkspaceToolsTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path temp;

    Path root;
    Path outside;
    Tool read;
    Tool write;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(temp.resolve("workspaces"));
        outside = Files.createDirectories(temp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "s3cret");
        var tools = new WorkspaceTools(new Workspaces(root), JSON).tools();
        read = tools.get(0);
        write = tools.get(1);
    }

    private String call(Tool tool, String runId, Map<String, String> args) throws Exception {
        JsonNode json = JSON.valueToTree(args);
        assertThat(JsonSchemas.validate(tool.parametersSchema(), json)).isEmpty();
        return tool.execute(json, new ToolContext(runId, runId, "alpha-editor", "c1"));
    }

    private void assertRefused(Tool tool, String runId, Map<String, String> args, String code, String messagePart) {
        assertThatThrownBy(() -> call(tool, runId, args))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining(messagePart)
                .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(code));
    }

    @Test
    void writeThenRead_inTheRunsOwnDirectory_andAnotherRunCannotSeeIt() throws Exception {
        String written = call(write, "run_a", Map.of("path", "src/alpha.py", "content", "VALUE = 42\n"));
        assertThat(JSON.readTree(written).get("created").asBoolean()).isTrue();
        assertThat(Files.readString(root.resolve("run_a/src/alpha.py"))).isEqualTo("VALUE = 42\n");
        assertThat(JSON.readTree(call(read, "run_a", Map.of("path", "src/alpha.py")))
                        .get("content")
                        .asString())
                .isEqualTo("VALUE = 42\n");
        assertThat(JSON.readTree(call(write, "run_a", Map.of("path", "src/alpha.py", "content", "VALUE = 43\n")))
                        .get("created")
                        .asBoolean())
                .isFalse();
        assertRefused(read, "run_b", Map.of("path", "src/alpha.py"), "not_found", "no file 'src/alpha.py'");
    }

    @Test
    void traversal_andAbsolutePaths_areRefusedNamingThePath_andNothingIsWritten() throws Exception {
        assertRefused(read, "run_a", Map.of("path", "../run_b/alpha.py"), "path_outside_workspace", "contains '..'");
        assertRefused(read, "run_a", Map.of("path", "src/../../outside/secret.txt"), "path_outside_workspace", "'..'");
        assertRefused(
                read,
                "run_a",
                Map.of("path", outside.resolve("secret.txt").toString()),
                "path_outside_workspace",
                "is absolute");
        assertRefused(
                write,
                "run_a",
                Map.of("path", "/tmp/cadre-escape.txt", "content", "x"),
                "path_outside_workspace",
                "is absolute");
        assertRefused(
                write,
                "run_a",
                Map.of("path", "../escape.txt", "content", "x"),
                "path_outside_workspace",
                "'../escape.txt'");
        assertRefused(read, "run_a", Map.of("path", "."), "path_outside_workspace", "does not name a file");
        assertThat(root.resolve("escape.txt")).doesNotExist();
        assertThat(Path.of("/tmp/cadre-escape.txt")).doesNotExist();
        assertRefused(read, "../run_a", Map.of("path", "x"), "invalid_run_id", "cannot name a workspace");
    }

    @Test
    void symbolicLinksLeadingOut_areRefused_linksInside_areFollowed() throws Exception {
        Path workspace = Files.createDirectories(root.resolve("run_a"));
        Files.createSymbolicLink(workspace.resolve("out"), outside);
        Files.createSymbolicLink(workspace.resolve("secret-link.txt"), outside.resolve("secret.txt"));
        Files.writeString(workspace.resolve("inside.txt"), "hello");
        Files.createSymbolicLink(workspace.resolve("inside-link.txt"), workspace.resolve("inside.txt"));

        assertRefused(
                read,
                "run_a",
                Map.of("path", "out/secret.txt"),
                "path_outside_workspace",
                "symbolic link that leads out of the workspace");
        assertRefused(read, "run_a", Map.of("path", "secret-link.txt"), "path_outside_workspace", "symbolic link");
        assertRefused(
                write,
                "run_a",
                Map.of("path", "out/new.txt", "content", "x"),
                "path_outside_workspace",
                "symbolic link");
        assertRefused(
                write,
                "run_a",
                Map.of("path", "secret-link.txt", "content", "overwritten"),
                "path_outside_workspace",
                "symbolic link");
        assertThat(outside.resolve("new.txt")).doesNotExist();
        assertThat(Files.readString(outside.resolve("secret.txt"))).isEqualTo("s3cret");

        assertThat(JSON.readTree(call(read, "run_a", Map.of("path", "inside-link.txt")))
                        .get("content")
                        .asString())
                .isEqualTo("hello");
    }

    @Test
    void aWorkspaceThatIsItselfALinkOut_isRefused() throws Exception {
        Files.createSymbolicLink(root.resolve("run_c"), outside);
        assertRefused(read, "run_c", Map.of("path", "secret.txt"), "path_outside_workspace", "symbolic link");
    }
}
