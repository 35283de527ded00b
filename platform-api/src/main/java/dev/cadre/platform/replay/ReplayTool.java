package dev.cadre.platform.replay;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ProposingTool;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.agents.Outward;
import tools.jackson.databind.JsonNode;

/**
 * A tool as agents see it (same name, schema and risk): in a replay run every call is answered from
 * the case's recording and the real tool never runs, whatever its risk; so no runbook, notify,
 * Kubernetes write or memory write can execute in a replay. Ordinary runs reach the real tool.
 */
class ReplayTool implements Tool {

    private final Tool real;
    private final ReplayRuns replays;

    ReplayTool(Tool real, ReplayRuns replays) {
        this.real = real;
        this.replays = replays;
    }

    /**
     * {@code real} as agents see it in replays. What the loop and the platform ask of a tool's type
     * is kept: a tool that completes its proposal ({@link ProposingTool}, e.g. the Kubernetes writes
     * binding the object's version) still does outside replays, and one that acts outside the platform
     * ({@link Outward}) is still raised to approval in untrusted runs.
     */
    static ReplayTool of(Tool real, ReplayRuns replays) {
        boolean proposing = real instanceof ProposingTool;
        boolean outward = real instanceof Outward;
        if (proposing && outward) {
            return new ProposingOutward((ProposingTool) real, replays);
        }
        if (proposing) {
            return new Proposing((ProposingTool) real, replays);
        }
        return outward ? new OutwardTool(real, replays) : new ReplayTool(real, replays);
    }

    /** Outside a replay the real tool completes its proposal; a replay proposes what the model asked. */
    JsonNode proposeUnlessReplaying(ProposingTool tool, JsonNode arguments, ToolContext context) throws Exception {
        return replays.of(context.runId()).isPresent() ? arguments : tool.propose(arguments, context);
    }

    private static class Proposing extends ReplayTool implements ProposingTool {
        private final ProposingTool real;

        Proposing(ProposingTool real, ReplayRuns replays) {
            super(real, replays);
            this.real = real;
        }

        @Override
        public JsonNode propose(JsonNode arguments, ToolContext context) throws Exception {
            return proposeUnlessReplaying(real, arguments, context);
        }

        @Override
        public java.util.Set<String> targetArguments() {
            return real.targetArguments();
        }

        @Override
        public ProposingTool.@org.jspecify.annotations.Nullable Words words(JsonNode proposed) {
            return real.words(proposed);
        }
    }

    private static final class ProposingOutward extends Proposing implements Outward {
        ProposingOutward(ProposingTool real, ReplayRuns replays) {
            super(real, replays);
        }
    }

    private static final class OutwardTool extends ReplayTool implements Outward {
        OutwardTool(Tool real, ReplayRuns replays) {
            super(real, replays);
        }
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public String description() {
        return real.description();
    }

    @Override
    public JsonNode parametersSchema() {
        return real.parametersSchema();
    }

    @Override
    public Risk risk() {
        return real.risk();
    }

    @Override
    public String execute(JsonNode arguments, ToolContext context) throws Exception {
        var recordings = replays.of(context.runId());
        if (recordings.isEmpty()) {
            return real.execute(arguments, context);
        }
        return switch (recordings.get().answer(real.name(), arguments)) {
            case Recordings.Answer.Recorded r
            when r.call().status().equals("ok") -> r.call().output();
            case Recordings.Answer.Recorded r ->
                // The recorded run got an error here: the replay gets the same error text.
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "recorded_error",
                        r.call().output());
            case Recordings.Answer.Missing m ->
                throw new ToolException(FailureCategory.EXECUTION_ERROR, "no_recording", m.message());
        };
    }
}
