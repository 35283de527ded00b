package dev.cadre.platform.replay;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import tools.jackson.databind.JsonNode;

/**
 * A tool as agents see it (same name, schema and risk): in a replay run every call is answered from
 * the case's recording and the real tool never runs, whatever its risk; so no runbook, notify,
 * Kubernetes write or memory write can execute in a replay. Ordinary runs reach the real tool.
 */
final class ReplayTool implements Tool {

    private final Tool real;
    private final ReplayRuns replays;

    ReplayTool(Tool real, ReplayRuns replays) {
        this.real = real;
        this.replays = replays;
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
