package dev.cadre.agent.workflow;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** How the outcomes of concurrent steps become one workflow outcome: merged findings, or a chunk report. */
final class Reductions {

    private Reductions() {}

    /** Merges the steps' findings (most severe first); failed steps are named in the report. */
    static WorkflowOutcome reduce(String name, List<StepOutcome> steps) {
        List<Finding> all = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        TokenUsage usage = TokenUsage.ZERO;
        for (StepOutcome s : steps) {
            usage = usage.plus(s.usage());
            if (s.status() == OutcomeStatus.OK) {
                all.addAll(Findings.parse(s.agent(), s.text()));
            } else {
                failed.add(s.agent() + ": "
                        + (s.failure() == null
                                ? s.status().wireName()
                                : s.failure().category() + ": " + s.failure().message()));
            }
        }
        Findings.Aggregated aggregated = Findings.aggregate(all);
        StringBuilder report = new StringBuilder(Findings.render(aggregated));
        failed.forEach(f -> report.append("\n[failed] ").append(f));
        Failure failure = failed.isEmpty()
                ? null
                : FailureCode.WORKERS_FAILED.failure(
                        failed.size() + " of " + steps.size() + " workers failed: " + String.join("; ", failed));
        return new WorkflowOutcome(
                name,
                failed.isEmpty() ? OutcomeStatus.OK : OutcomeStatus.FAILED,
                report.toString(),
                failure,
                steps,
                aggregated.sorted(),
                aggregated.byTarget(),
                null,
                usage);
    }

    /** The report of a split: each chunk's status and answer (or failure) in chunk order. */
    static WorkflowOutcome chunks(String name, List<StepOutcome> steps) {
        TokenUsage usage = TokenUsage.ZERO;
        int ok = 0;
        StringBuilder report = new StringBuilder();
        for (StepOutcome step : steps) {
            usage = usage.plus(step.usage());
            boolean fine = step.status() == OutcomeStatus.OK;
            ok += fine ? 1 : 0;
            report.append("\n- [")
                    .append(step.status().wireName())
                    .append("] ")
                    .append(step.sessionId())
                    .append(": ")
                    .append(
                            fine
                                    ? step.text()
                                    : step.failure() == null
                                            ? ""
                                            : step.failure().category() + ": "
                                                    + step.failure().message());
        }
        String text = "subagents " + ok + "/" + steps.size() + " ok" + report;
        Failure failure = ok == steps.size()
                ? null
                : FailureCode.CHUNKS_FAILED.failure((steps.size() - ok) + " of " + steps.size() + " chunks failed");
        return new WorkflowOutcome(
                name,
                failure == null ? OutcomeStatus.OK : OutcomeStatus.FAILED,
                text,
                failure,
                steps,
                List.of(),
                Map.of(),
                null,
                usage);
    }
}
