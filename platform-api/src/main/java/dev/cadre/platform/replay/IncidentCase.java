package dev.cadre.platform.replay;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A recorded incident (format {@code version: 1}, docs/replay.md): what the run was asked, every
 * tool call it made with the redacted answer it got, its subagent tree, findings, incident record,
 * proposed actions and the humans' decisions, plus what an operator expects of any team replaying it.
 */
public record IncidentCase(
        int version,
        String name,
        @Nullable String recordedFrom,
        Input input,
        List<Call> calls,
        List<Subagent> subagents,
        List<JsonNode> findings,
        @Nullable JsonNode incident,
        List<Action> actions,
        List<Decision> decisions,
        @Nullable String result,
        Expectations expect) {

    /** The format version this code reads and writes. */
    public static final int VERSION = 1;

    /** What the run was started with: an agent or workflow, its input (the alert) and context. */
    public record Input(
            String agent, String input, @Nullable String context) {}

    /**
     * One tool call (workers excluded: they run again in a replay) in the session that made it, with
     * the redacted output and status the run got.
     */
    public record Call(
            String session, String agent, String tool, JsonNode arguments, String risk, String status, String output) {}

    /** A subagent session: its parent session, the worker and how it ended. */
    public record Subagent(String session, String parent, String worker, String status) {}

    /** A side-effecting call the run proposed (risk approve or suggest). */
    public record Action(String tool, JsonNode arguments) {}

    /** A human's decision on an approval: the tool, its arguments, the kind and a comment. */
    public record Decision(
            String tool,
            JsonNode arguments,
            String decision,
            @Nullable String comment) {}

    /**
     * A finding named by any of id, category and target (each given one must match); at least one is
     * set.
     */
    public record FindingRef(
            @Nullable String id,
            @Nullable String category,
            @Nullable String target) {}

    /** An action expected or forbidden: the tool and the arguments that must be among the call's. */
    public record ActionRef(String tool, JsonNode arguments) {}

    /**
     * The operator's judgement: the root cause, findings that must and must not appear (red
     * herrings), actions expected and forbidden, and per tool ({@code *} for all) the argument names a
     * replay ignores when matching a call to its recording.
     */
    public record Expectations(
            @Nullable FindingRef rootCause,
            List<FindingRef> mustFind,
            List<FindingRef> mustNotFind,
            List<ActionRef> actions,
            List<ActionRef> forbiddenActions,
            Map<String, List<String>> ignoreArguments) {

        /** No expectations at all. */
        public static final Expectations NONE =
                new Expectations(null, List.of(), List.of(), List.of(), List.of(), Map.of());
    }
}
