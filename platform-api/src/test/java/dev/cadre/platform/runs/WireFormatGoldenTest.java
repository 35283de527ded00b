package dev.cadre.platform.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.event.EventMeta;
import dev.cadre.agent.tool.Risk;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;

/**
 * Golden files of what clients parse: the run event JSON (every event type), the SSE wire form of a
 * run's event stream and the REST representation of a run (accepted and finished). They sit in
 * {@code src/test/resources/golden/}, the counterpart of agent-core's checkpoint golden
 * ({@code agent-core/src/test/resources/checkpoints/}): a change to a wire format fails here and
 * shows as a diff of the golden file in review. After an intended change, rewrite the files with
 * {@code -Dgolden.update=true} and commit them with the change.
 *
 * <p>Values that differ from run to run (ids, times, durations) are replaced by placeholders
 * before comparing; everything else is compared: JSON as trees, the SSE stream as text.
 */
@PlatformTest
class WireFormatGoldenTest {

    private static final Path GOLDEN_SOURCES = Path.of("src/test/resources/golden");
    private static final boolean UPDATE = Boolean.getBoolean("golden.update");
    private static final JsonMapper PRETTY =
            JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    @LocalServerPort
    int port;

    @Autowired
    EventJson eventJson;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    void everyRunEventType_keepsItsJsonForm() {
        ArrayNode all = PRETTY.createArrayNode();
        allEventTypes("run-1").forEach(e -> all.add(eventJson.toJson(e)));

        assertMatchesGolden("run-events.json", PRETTY.writeValueAsString(all), true);
    }

    @Test
    void aRunWithAnApproval_keepsItsRestAndSseForms() {
        JsonNode accepted = api.submitRun("fixer", "api is stuck (golden)");
        String id = accepted.get("id").asString();
        JsonNode approval = api.pendingApprovalOf(id);
        var decided = api.approve(approval.get("id").asString(), Api.ADMIN_KEY, "{\"comment\":\"go ahead\"}");
        assertThat(decided.status()).as(decided.body()).isEqualTo(200);
        api.awaitRunEnd(id);
        // The trace id reaches the run record when the run's spans are exported (in batches, after
        // the run ends): wait for it, or the golden would depend on who wins that race.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !api.get("/api/v1/runs/" + id, Api.ADMIN_KEY)
                        .json()
                        .path("traceId")
                        .isNull());

        // One normaliser for the three files, so the same id has the same placeholder in all of them.
        Normaliser n = new Normaliser();
        String acceptedJson = n.apply(PRETTY.writeValueAsString(accepted));
        String runJson = n.apply(PRETTY.writeValueAsString(
                api.get("/api/v1/runs/" + id, Api.ADMIN_KEY).json()));
        var stream = api.get("/api/v1/runs/" + id + "/events", Api.ADMIN_KEY);
        assertThat(stream.header("Content-Type")).startsWith("text/event-stream");
        String sse = n.apply(stream.body());

        assertMatchesGolden("run-accepted.json", acceptedJson, true);
        assertMatchesGolden("run-record.json", runJson, true);
        assertMatchesGolden("run-events.sse", sse, false);
    }

    /** One event of each type of the sealed {@link AgentEvent}, with fixed ids (but the run's) and times. */
    static List<AgentEvent> allEventTypes(String runId) {
        Instant at = Instant.parse("2026-01-02T03:04:05.678Z");
        EventMeta main = new EventMeta(runId, "session-1", null, 1, "ops", at);
        EventMeta child = new EventMeta(runId, "session-2", "session-1", 1, "worker", at);
        JsonNode args = PRETTY.readTree("{\"service\":\"api\",\"host\":\"web-1\"}");
        TokenUsage usage = new TokenUsage(120, 30);
        Failure failure = new Failure(FailureCategory.EXECUTION_ERROR, "tool_failed", "the tool threw");
        return List.of(
                new AgentEvent.RunStarted(main, "restart api on web-1"),
                new AgentEvent.Status(main, "iteration 1", 1),
                new AgentEvent.TextDelta(main, "Restarting it."),
                new AgentEvent.ToolCallStart(main, "call_1_1", "restart_service", args, Risk.APPROVE, false),
                new AgentEvent.ApprovalRequested(
                        main,
                        new ApprovalRequest(
                                ApprovalKind.TOOL_CALL,
                                runId,
                                "session-1",
                                "ops",
                                "call_1_1",
                                "restart_service",
                                args,
                                "restart api on web-1",
                                "it is stuck",
                                0.8,
                                List.of("restart", "verify"))),
                new AgentEvent.ApprovalResolved(main, "call_1_1", new ApprovalDecision.Approved("alice")),
                new AgentEvent.ApprovalResolved(
                        main, "call_1_2", new ApprovalDecision.ApprovedWithEdits(args, "alice")),
                new AgentEvent.ApprovalResolved(main, "call_1_3", new ApprovalDecision.Rejected("not now", "bob")),
                new AgentEvent.ApprovalResolved(main, "call_1_4", new ApprovalDecision.Expired()),
                new AgentEvent.ToolResultEvent(
                        main, "call_1_1", "restart_service", OutcomeStatus.OK, "restarted", null),
                new AgentEvent.ToolResultEvent(
                        main, "call_1_5", "read_metrics", OutcomeStatus.FAILED, "the tool threw", failure),
                new AgentEvent.SubagentStarted(main, "call_2_1", "worker", "session-2", "check the disk"),
                new AgentEvent.SubagentFinished(
                        main, "call_2_1", "worker", "session-2", OutcomeStatus.OK, new TokenUsage(10, 2), 42),
                new AgentEvent.Done(child, "disk is fine", new TokenUsage(10, 2), 1),
                new AgentEvent.Error(main, OutcomeStatus.BUDGET_EXCEEDED, failure, usage, 3),
                new AgentEvent.Done(main, "done: restarted api", usage, 3));
    }

    /**
     * JSON files are compared as trees (the order of an object's fields is not part of the contract,
     * and a map such as {@code links} has none); the SSE stream is compared as text, its data lines
     * included, as a client's parser sees it.
     */
    private static void assertMatchesGolden(String name, String actual, boolean json) {
        String text = actual.replace("\r\n", "\n").strip() + "\n";
        if (UPDATE) {
            try {
                Files.createDirectories(GOLDEN_SOURCES);
                Files.writeString(GOLDEN_SOURCES.resolve(name), text);
            } catch (IOException e) {
                throw new IllegalStateException("could not write golden file " + name, e);
            }
            return;
        }
        String why = "differs from golden/" + name + ": if the wire format changed on purpose, rerun with"
                + " -Dgolden.update=true and commit the diff of the golden file";
        String expected = golden(name);
        // Equal trees pass whatever the field order; otherwise the text comparison shows the diff.
        if (!json || !PRETTY.readTree(text).equals(PRETTY.readTree(expected))) {
            assertThat(text).as(why).isEqualTo(expected);
        }
    }

    private static String golden(String name) {
        try (InputStream in = WireFormatGoldenTest.class.getResourceAsStream("/golden/" + name)) {
            assertThat(in).as("golden file golden/%s is missing", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Replaces what differs between runs by stable placeholders: each distinct id by
     * {@code <id-N>} in order of first appearance (so equal ids stay visibly equal), instants by
     * {@code <instant>}, and measured durations by {@code <millis>}.
     */
    private static final class Normaliser {
        // Run ids (run_ + 32 hex digits), trace ids (32 hex digits) and UUIDs.
        private static final Pattern ID = Pattern.compile(
                "\\b(?:[a-z]+_)?[0-9a-f]{32}\\b|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        private static final Pattern INSTANT =
                Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})");
        private static final Pattern DURATION = Pattern.compile(
                "(\"(?:durationMs|durationMillis|elapsedMs|latencyMs|expiresInSeconds)\"\\s*:\\s*)\\d+");

        private final Map<String, String> ids = new LinkedHashMap<>();

        String apply(String text) {
            Matcher m = ID.matcher(text);
            StringBuilder out = new StringBuilder();
            while (m.find()) {
                String placeholder = ids.computeIfAbsent(m.group(), k -> "<id-" + (ids.size() + 1) + ">");
                m.appendReplacement(out, Matcher.quoteReplacement(placeholder));
            }
            m.appendTail(out);
            String s = INSTANT.matcher(out).replaceAll("<instant>");
            return DURATION.matcher(s).replaceAll("$1\"<millis>\"");
        }
    }
}
