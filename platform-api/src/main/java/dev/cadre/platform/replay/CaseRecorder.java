package dev.cadre.platform.replay;

import dev.cadre.platform.replay.IncidentCase.Expectations;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Builds an {@link IncidentCase} from a finished run's stored events: the events are already redacted
 * when stored (EventJson), so nothing here sees a secret in the clear. Worker calls become the subagent
 * tree, not recorded calls: in a replay the workers run again and only their tools answer from the
 * recording.
 */
public final class CaseRecorder {

    private static final int PAGE = 1000;

    private final RunEvents events;
    private final JsonMapper json;

    public CaseRecorder(RunEvents events, JsonMapper json) {
        this.events = events;
        this.json = json;
    }

    /** The case of {@code run} (which must be finished) with the operator's {@code expect}. */
    public IncidentCase record(RunRecord run, String name, Expectations expect) {
        Map<String, JsonNode> starts = new HashMap<>();
        // An approval's resolution may be told in another session than its call: match by call id too.
        Map<String, JsonNode> byCall = new HashMap<>();
        List<IncidentCase.Call> calls = new ArrayList<>();
        List<IncidentCase.Subagent> subagents = new ArrayList<>();
        List<IncidentCase.Action> actions = new ArrayList<>();
        List<IncidentCase.Decision> decisions = new ArrayList<>();
        List<JsonNode> findings = List.of();
        JsonNode incident = null;
        long after = 0;
        while (true) {
            List<RunEvents.StoredEvent> page = events.since(run.id(), after, true, PAGE);
            for (RunEvents.StoredEvent e : page) {
                JsonNode d = e.data();
                String session = d.path("sessionId").asString("");
                switch (e.type()) {
                    case "tool_call_start" -> {
                        starts.put(session + "/" + d.path("callId").asString(), d);
                        byCall.put(d.path("callId").asString(), d);
                        String risk = d.path("risk").asString("");
                        if (!d.path("worker").asBoolean(false) && (risk.equals("approve") || risk.equals("suggest"))) {
                            actions.add(new IncidentCase.Action(d.path("tool").asString(), args(d)));
                        }
                    }
                    case "tool_result" -> {
                        JsonNode start =
                                starts.get(session + "/" + d.path("callId").asString());
                        if (start == null || start.path("worker").asBoolean(false)) {
                            break;
                        }
                        String tool = d.path("tool").asString();
                        String output = d.path("content").asString("");
                        calls.add(new IncidentCase.Call(
                                session,
                                d.path("agent").asString(""),
                                tool,
                                args(start),
                                start.path("risk").asString(""),
                                d.path("status").asString(""),
                                output));
                        JsonNode parsed = parse(output);
                        if (parsed != null && parsed.path("findings").isArray() && tool.equals("findings_aggregate")) {
                            findings = parsed.path("findings").valueStream().toList();
                        }
                        if (parsed != null && tool.equals("incident_open") && parsed.isObject()) {
                            incident = parsed;
                        }
                    }
                    case "subagent_finished" ->
                        subagents.add(new IncidentCase.Subagent(
                                d.path("childSessionId").asString(),
                                session,
                                d.path("worker").asString(),
                                d.path("status").asString("")));
                    case "approval_resolved" -> {
                        JsonNode start = starts.getOrDefault(
                                session + "/" + d.path("callId").asString(),
                                byCall.get(d.path("callId").asString()));
                        JsonNode decision = d.path("decision");
                        decisions.add(new IncidentCase.Decision(
                                start == null ? "unknown" : start.path("tool").asString(),
                                start == null ? JsonNodeFactory.instance.objectNode() : args(start),
                                decision.path("kind").asString(""),
                                decision.hasNonNull("comment")
                                        ? decision.get("comment").asString()
                                        : null));
                    }
                    default -> {}
                }
                after = e.seq();
            }
            if (page.size() < PAGE) {
                break;
            }
        }
        return new IncidentCase(
                IncidentCase.VERSION,
                name,
                run.id(),
                new IncidentCase.Input(run.agent(), run.input(), run.context()),
                List.copyOf(calls),
                List.copyOf(subagents),
                findings,
                incident,
                List.copyOf(actions),
                List.copyOf(decisions),
                run.result(),
                expect);
    }

    private static JsonNode args(JsonNode start) {
        JsonNode a = start.path("arguments");
        return a.isObject() ? a : JsonNodeFactory.instance.objectNode();
    }

    private @Nullable JsonNode parse(String text) {
        if (!text.stripLeading().startsWith("{")) {
            return null;
        }
        try {
            return json.readTree(text);
        } catch (JacksonException e) {
            return null;
        }
    }
}
