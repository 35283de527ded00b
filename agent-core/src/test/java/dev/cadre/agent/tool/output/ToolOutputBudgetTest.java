package dev.cadre.agent.tool.output;

import static dev.cadre.agent.testing.Fixtures.agent;
import static dev.cadre.agent.testing.Fixtures.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.AgentTree;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.run.AgentRunner;
import dev.cadre.agent.run.Checkpoint;
import dev.cadre.agent.run.RunOutcome;
import dev.cadre.agent.run.RunRequest;
import dev.cadre.agent.run.internal.Spans;
import dev.cadre.agent.scripted.AgentScript;
import dev.cadre.agent.scripted.ScriptedModel;
import dev.cadre.agent.scripted.ScriptedTurn;
import dev.cadre.agent.telemetry.Redactor;
import dev.cadre.agent.testing.Fixtures;
import dev.cadre.agent.testing.Recorder;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 24 item 2: a 5 MB log reaches the model capped, is kept (redacted, bounded) behind a handle the
 * agent pages through with {@code tool_output_read}, and neither history, checkpoints nor events hold it.
 */
class ToolOutputBudgetTest {

    private static final int CAP = ToolOutputBudget.DEFAULT.maxBytes();

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder()
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .build();

    /** About 5 MB of log lines, line i is {@code line(i)}; every 1000th an error; line 4242 has a password. */
    static String bigLog(int bytes) {
        StringBuilder out = new StringBuilder(bytes + 100);
        for (int i = 0; out.length() < bytes; i++) {
            out.append(line(i)).append('\n');
        }
        return out.toString();
    }

    static String line(int i) {
        if (i == 4242) {
            return String.format("%07d 2026-12-05T10:00:00Z WARN db connect password=hunter2 failed", i);
        }
        return i % 1000 == 999
                ? String.format("%07d 2026-12-05T10:00:00Z ERROR upstream timeout after 30s", i)
                : String.format("%07d 2026-12-05T10:00:00Z INFO request served path=/api/v1/items status=200", i);
    }

    @Test
    void aFiveMegabyteLog_isCappedForTheModel_keptWhole_andPagedThroughWithToolOutputRead() throws Exception {
        String log = bigLog(5 * 1024 * 1024);
        String runId = "run-big-log";
        String handle = ToolOutputs.handle(new ToolContext(runId, runId, "investigator", "call_1_1"));
        String otherRunsHandle =
                ToolOutputs.handle(new ToolContext("run-other", "run-other", "investigator", "call_1_1"));
        ScriptedModel model = new ScriptedModel(
                Map.of(
                        "investigator",
                        AgentScript.of(
                                ScriptedTurn.calls(call("pod_logs", "{}")),
                                ScriptedTurn.calls(call(
                                        "tool_output_read",
                                        "{\"handle\":\"" + handle + "\",\"offset\":1000,\"limit\":5}")),
                                ScriptedTurn.calls(call(
                                        "tool_output_read",
                                        "{\"handle\":\"" + handle
                                                + "\",\"offset\":2000,\"limit\":3,\"grep\":\"error\"}")),
                                ScriptedTurn.calls(call(
                                        "tool_output_read", "{\"handle\":\"" + handle + "\",\"grep\":\"db connect\"}")),
                                ScriptedTurn.calls(
                                        call("tool_output_read", "{\"handle\":\"" + otherRunsHandle + "\"}")),
                                ScriptedTurn.text("upstream timeouts every 1000 requests"))),
                true);
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "pod_logs",
                "Logs of a pod.",
                "{\"type\":\"object\",\"properties\":{}}",
                Risk.AUTO,
                (args, ctx) -> log));
        AgentTree tree = Fixtures.tree(
                tools, model, agent("investigator").tools("pod_logs").build());
        InMemoryToolOutputStore store = new InMemoryToolOutputStore();
        ToolOutputs outputs = new ToolOutputs(store, ToolOutputBudget.DEFAULT, Redactor.credentials());
        Recorder recorder = new Recorder();
        RunOutcome outcome;
        try (AgentRunner runner = AgentRunner.builder(tree)
                .openTelemetry(otel)
                .toolOutputs(outputs)
                .build()) {
            outcome = runner.run(RunRequest.of(runId, "investigator", "why do requests fail?"), recorder);
        }
        assertThat(outcome).isInstanceOf(RunOutcome.Completed.class);

        List<ModelRequest> requests = model.requestsOf("investigator");
        assertThat(requests).hasSize(6);
        // The model's next request stays under the cap: the result it reads is head + tail + the cut line.
        String capped = resultOf(requests.get(1), "call_1_1");
        assertThat(bytes(capped)).isLessThanOrEqualTo(CAP).isGreaterThan(CAP / 2);
        assertThat(bytes(requests.get(1).messages().toString())).isLessThan(CAP + 2048);
        assertThat(capped).startsWith(line(0) + "\n").endsWith(lastLine(log) + "\n");
        assertThat(capped)
                .contains("[cadre: output cut: the tool returned " + log.length() + " bytes;")
                .contains("tool_output_read {\"handle\":\"" + handle + "\",\"offset\":");
        // Told about tool_output_read once a result was capped, not before.
        assertThat(names(requests.get(0).tools())).doesNotContain("tool_output_read");
        assertThat(names(requests.get(1).tools())).contains("tool_output_read");

        // Paging: offset and limit, then grep from an offset, then grep finds the redacted line.
        assertThat(resultOf(requests.get(2), "call_2_1"))
                .contains("lines 1000-1004; next offset 1005]")
                .contains("\n1000: " + line(1000) + "\n1001: " + line(1001))
                .endsWith("\n1004: " + line(1004));
        assertThat(resultOf(requests.get(3), "call_3_1"))
                .contains("3 lines containing \"error\" from line 2000; next offset 5000]")
                .endsWith("\n2999: " + line(2999) + "\n3999: " + line(3999) + "\n4999: " + line(4999));
        String secretPage = resultOf(requests.get(4), "call_4_1");
        assertThat(secretPage)
                .contains("1 lines containing \"db connect\"")
                .contains("\n4242: 0004242 2026-12-05T10:00:00Z WARN db connect ")
                .doesNotContain("hunter2");
        // A handle of another run is refused.
        assertThat(resultOf(requests.get(5), "call_5_1"))
                .contains("unknown_output_handle")
                .contains("no tool output '" + otherRunsHandle + "' in this run");

        // Kept whole (the log is under 8 MiB), redacted, in chunks of whole lines.
        ToolOutputInfo info = store.find(runId, handle);
        assertThat(info).isNotNull();
        assertThat(info.originalBytes()).isEqualTo(log.length());
        assertThat(info.truncated()).isFalse();
        assertThat(info.storedLines()).isEqualTo(log.lines().count());
        assertThat(info.tool()).isEqualTo("pod_logs");
        assertThat(store.find("run-other", handle)).isNull();

        // Memory stays flat: no checkpoint, history or event holds the 5 MB, only the capped text.
        for (Checkpoint cp : recorder.checkpoints()) {
            long historyBytes = 0;
            for (Message m : cp.history()) {
                historyBytes += bytes(m.toString());
            }
            assertThat(historyBytes).isLessThan(6 * CAP);
        }
        assertThat(recorder.checkpoints().getLast().history().toString()).contains(handle);
        for (AgentEvent.ToolResultEvent e : recorder.ofType(AgentEvent.ToolResultEvent.class)) {
            assertThat(bytes(e.content())).isLessThanOrEqualTo(CAP);
        }

        // Spans: the original and the delivered size, exactly.
        List<SpanData> toolSpans = exporter.getFinishedSpanItems().stream()
                .filter(s -> s.getName().startsWith("execute_tool"))
                .toList();
        assertThat(toolSpans).hasSize(5);
        SpanData logs = toolSpans.getFirst();
        assertThat(logs.getName()).isEqualTo("execute_tool pod_logs");
        assertThat(logs.getAttributes().get(Spans.TOOL_OUTPUT_ORIGINAL_BYTES)).isEqualTo(log.length());
        assertThat(logs.getAttributes().get(Spans.TOOL_OUTPUT_DELIVERED_BYTES)).isEqualTo(bytes(capped));
        assertThat(logs.getAttributes().get(Spans.TOOL_OUTPUT_HANDLE)).isEqualTo(handle);
        SpanData page = toolSpans.get(1);
        String pageText = resultOf(requests.get(2), "call_2_1");
        assertThat(page.getAttributes().get(Spans.TOOL_OUTPUT_ORIGINAL_BYTES)).isEqualTo(bytes(pageText));
        assertThat(page.getAttributes().get(Spans.TOOL_OUTPUT_DELIVERED_BYTES)).isEqualTo(bytes(pageText));
        assertThat(page.getAttributes().get(Spans.TOOL_OUTPUT_HANDLE)).isNull();
    }

    @Test
    void anOutputBeyondTheStoredMaximum_isKeptAsHeadAndTailWithAMarker() {
        InMemoryToolOutputStore store = new InMemoryToolOutputStore();
        ToolOutputBudget budget = new ToolOutputBudget(4096, Map.of(), 1024 * 1024);
        ToolOutputs outputs = new ToolOutputs(store, budget, Redactor.NONE);
        String log = bigLog(3 * 1024 * 1024);
        ToolOutputs.Delivered d = outputs.deliver(new ToolContext("r", "s", "a", "c"), "pod_logs", log, 4096);

        assertThat(d.deliveredBytes()).isLessThanOrEqualTo(4096);
        assertThat(d.originalBytes()).isEqualTo(log.length());
        ToolOutputInfo info = store.find("r", d.handle());
        assertThat(info.truncated()).isTrue();
        assertThat(info.storedBytes()).isLessThanOrEqualTo(1024 * 1024);
        // Heap held by the store: about the kept bytes (UTF-16), never the 3 MB original.
        assertThat(store.totalBytes()).isLessThanOrEqualTo(2L * 1024 * 1024 + 1024);
        ToolOutputPage marker = outputs.read("r", d.handle(), 0, 10, "were not kept", 4096);
        assertThat(marker.lines()).hasSize(1);
        assertThat(marker.lines().getFirst().text())
                .startsWith("[cadre: ")
                .contains("bytes of the middle were not kept");
        ToolOutputPage end = outputs.read("r", d.handle(), info.storedLines() - 2, 10, null, 16384);
        assertThat(end.lines()).extracting(ToolOutputPage.Line::text).endsWith(lastLine(log));
        assertThat(end.nextOffset()).isNull();
    }

    @Test
    void agentAndToolOverrides_setTheCap_agentToolFirst() {
        ToolOutputBudget platform = new ToolOutputBudget(16384, Map.of("k8s_logs", 32768), 8 * 1024 * 1024);
        assertThat(platform.capFor("k8s_logs", ToolOutputCaps.NONE)).isEqualTo(32768);
        assertThat(platform.capFor("k8s_get", ToolOutputCaps.NONE)).isEqualTo(16384);
        ToolOutputCaps agentCaps = new ToolOutputCaps(8192, Map.of("k8s_get", 4096));
        assertThat(platform.capFor("k8s_logs", agentCaps)).isEqualTo(8192);
        assertThat(platform.capFor("k8s_get", agentCaps)).isEqualTo(4096);
        assertThat(platform.capFor("k8s_get", new ToolOutputCaps(null, Map.of())))
                .isEqualTo(16384);
    }

    @Test
    void anAgentsOwnCap_isWhatItsModelReads() throws Exception {
        String log = bigLog(100_000);
        ScriptedModel model = new ScriptedModel(
                Map.of("small", AgentScript.of(ScriptedTurn.calls(call("pod_logs", "{}")), ScriptedTurn.text("ok"))),
                true);
        ToolRegistry tools = ToolRegistry.of(Tools.of(
                "pod_logs", "Logs.", "{\"type\":\"object\",\"properties\":{}}", Risk.AUTO, (args, ctx) -> log));
        AgentTree tree = Fixtures.tree(
                tools,
                model,
                agent("small")
                        .tools("pod_logs")
                        .toolOutput(new ToolOutputCaps(8192, Map.of("pod_logs", 2048)))
                        .build());
        try (AgentRunner runner = AgentRunner.builder(tree).build()) {
            runner.run(RunRequest.of("run-small", "small", "logs?"), new Recorder());
        }
        String capped = resultOf(model.requestsOf("small").get(1), "call_1_1");
        assertThat(bytes(capped)).isLessThanOrEqualTo(2048).isGreaterThan(1024);
        assertThat(capped).contains("[cadre: output cut:");
    }

    @Test
    void cutsNeverSplitACharacter_andStayWithinTheCap() {
        ToolOutputs outputs = new ToolOutputs(new InMemoryToolOutputStore(), ToolOutputBudget.DEFAULT, Redactor.NONE);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            text.append("zeile ").append(i).append(" äöü € 𝄞 ");
            if (i % 7 == 0) {
                text.append('\n');
            }
        }
        String out = text.toString();
        for (int cap : new int[] {1024, 1500, 4097, 16384}) {
            ToolOutputs.Delivered d = outputs.deliver(new ToolContext("r", "s", "a", "c" + cap), "t", out, cap);
            assertThat(bytes(d.content())).isEqualTo(d.deliveredBytes()).isLessThanOrEqualTo(cap);
            assertThat(d.originalBytes()).isEqualTo(bytes(out));
            // A lone surrogate would come back from UTF-8 as '?'.
            assertThat(new String(d.content().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
                    .isEqualTo(d.content());
        }
    }

    private static String lastLine(String log) {
        String trimmed = log.substring(0, log.length() - 1);
        return trimmed.substring(trimmed.lastIndexOf('\n') + 1);
    }

    private static String resultOf(ModelRequest request, String callId) {
        return request.messages().stream()
                .filter(m -> m instanceof ToolResultMessage r && r.callId().equals(callId))
                .map(m -> ((ToolResultMessage) m).content())
                .findFirst()
                .orElseThrow();
    }

    private static List<String> names(List<ToolDefinition> tools) {
        return tools.stream().map(ToolDefinition::name).toList();
    }

    private static long bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
