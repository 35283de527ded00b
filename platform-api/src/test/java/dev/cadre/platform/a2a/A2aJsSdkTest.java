package dev.cadre.platform.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The official A2A JS SDK ({@code @a2a-js/sdk} 1.3.0 from npm, which {@code ./test} installs into
 * {@code CADRE_TEST_NPM_PREFIX}, see {@link dev.cadre.platform.support.NpmPeers}) against a live server:
 * issue 26 found that its {@code sendMessage} got {@code SUBMITTED} after 82 ms, because Cadre read
 * an absent {@code returnImmediately} as "answer at once" where A2A 1.0 says the server waits.
 * Fails, naming the install command, where node or the SDK is missing.
 */
@PlatformTest
class A2aJsSdkTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @LocalServerPort
    int port;

    private JsonNode send(String agent, String text, boolean returnImmediately) throws Exception {
        Path dir = dev.cadre.platform.support.NpmPeers.module("@a2a-js/sdk", "1.3.0")
                .getParent()
                .getParent()
                .getParent();
        assertThat(onPath("node"))
                .as("node is on the PATH (apt-get install -y nodejs npm)")
                .isTrue();
        // The script runs from the SDK's directory so that Node resolves the package from there.
        Path script = dir.resolve("cadre-send-message-" + UUID.randomUUID() + ".mjs");
        try (InputStream in = Objects.requireNonNull(getClass().getResourceAsStream("/a2a-js/send-message.mjs"))) {
            Files.copy(in, script);
        }
        try {
            List<String> command = new ArrayList<>(List.of(
                    "node",
                    script.toString(),
                    "http://127.0.0.1:" + port,
                    Api.ADMIN_KEY,
                    agent,
                    text,
                    Boolean.toString(returnImmediately)));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("node finished").isTrue();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(out).isZero();
            String last = out.strip().lines().reduce((a, b) -> b).orElse("");
            return JSON.readTree(last);
        } finally {
            Files.deleteIfExists(script);
        }
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    @Test
    void sendMessage_withoutConfiguration_getsTheFinishedTask() throws Exception {
        JsonNode answer = send("ops-orchestrator", "check host web-8", false);
        assertThat(answer.get("state").asString()).as(answer.toString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(answer.get("text").asString()).contains("Host check finished");
    }

    @Test
    void sendMessage_returnImmediately_getsTheTaskAtOnce() throws Exception {
        JsonNode answer = send("slow", "think long (js sdk)", true);
        assertThat(answer.get("state").asString())
                .as(answer.toString())
                .isIn("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING");
        new Api(port).post("/api/v1/runs/" + answer.get("id").asString() + "/cancel", Api.ADMIN_KEY, null);
    }
}
