package dev.cadre.agent.workflow;

import dev.cadre.agent.FailureCode;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalGate;
import dev.cadre.agent.approval.ApprovalKind;
import dev.cadre.agent.approval.ApprovalRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@link Workflow.Debate}: rounds in which every participant states a position on the topic, seeing
 * the previous round's positions, until enough of them agree; without consensus a human breaks the
 * tie through the approval gate ({@link ApprovalKind#TIE_BREAK}).
 */
final class Debates {

    /** Runs one round: every agent on the same input, concurrently, outcomes in agent order. */
    interface Round {
        List<StepOutcome> run(List<String> agents, String label, String input) throws InterruptedException;
    }

    private final String runId;
    private final ApprovalGate humans;
    private final Round rounds;

    Debates(String runId, ApprovalGate humans, Round rounds) {
        this.runId = runId;
        this.humans = humans;
        this.rounds = rounds;
    }

    WorkflowOutcome run(Workflow.Debate d, String topic) throws InterruptedException {
        List<StepOutcome> steps = new ArrayList<>();
        TokenUsage usage = TokenUsage.ZERO;
        List<Position> positions = List.of();
        for (int round = 1; round <= d.maxRounds(); round++) {
            StringBuilder prompt = new StringBuilder(topic);
            if (!positions.isEmpty()) {
                prompt.append("\n\nPositions of round ").append(round - 1).append(':');
                positions.forEach(p -> prompt.append("\n- ").append(p.render()));
            }
            prompt.append("\n\nRound ")
                    .append(round)
                    .append(" of ")
                    .append(d.maxRounds())
                    .append(". Answer {\"verdict\": ..., \"confidence\": 0..1, \"argument\": ...}.");
            String roundInput = prompt.toString();
            List<StepOutcome> round_ = rounds.run(d.participants(), d.name(), roundInput);
            steps.addAll(round_);
            List<Position> next = new ArrayList<>();
            for (StepOutcome s : round_) {
                usage = usage.plus(s.usage());
                if (s.status() == OutcomeStatus.OK) {
                    next.add(Position.of(s.agent(), s.text()));
                }
            }
            positions = next;
            Map<String, Integer> votes = votes(positions);
            String leader = leader(votes);
            if (leader != null
                    && votes.get(leader)
                            >= d.consensusThreshold() * d.participants().size()) {
                return new WorkflowOutcome(
                        d.name(), OutcomeStatus.OK, leader, null, steps, List.of(), Map.of(), null, usage);
            }
        }
        return d.judge() == null ? tieBreak(d, positions, steps, usage) : judge(d, topic, positions, steps, usage);
    }

    /** Without consensus the judge agent rules on the last round's positions. */
    private WorkflowOutcome judge(
            Workflow.Debate d, String topic, List<Position> positions, List<StepOutcome> steps, TokenUsage usage)
            throws InterruptedException {
        StringBuilder prompt = new StringBuilder(topic)
                .append("\n\nThe debate '")
                .append(d.name())
                .append("' found no consensus in ")
                .append(d.maxRounds())
                .append(" rounds. Last positions:");
        positions.forEach(p -> prompt.append("\n- ").append(p.render()));
        prompt.append("\n\nRule on it. Answer {\"verdict\": ..., \"argument\": ...}.");
        StepOutcome ruling =
                rounds.run(List.of(d.judge()), d.name(), prompt.toString()).getFirst();
        List<StepOutcome> all = new ArrayList<>(steps);
        all.add(ruling);
        TokenUsage total = usage.plus(ruling.usage());
        if (ruling.status() != OutcomeStatus.OK) {
            return new WorkflowOutcome(
                    d.name(), ruling.status(), null, ruling.failure(), all, List.of(), Map.of(), null, total);
        }
        String verdict = Position.of(d.judge(), ruling.text()).verdict().strip().toLowerCase(Locale.ROOT);
        return new WorkflowOutcome(d.name(), OutcomeStatus.OK, verdict, null, all, List.of(), Map.of(), null, total);
    }

    private WorkflowOutcome tieBreak(
            Workflow.Debate d, List<Position> positions, List<StepOutcome> steps, TokenUsage usage)
            throws InterruptedException {
        Map<String, Integer> votes = votes(positions);
        String leader = leader(votes);
        ObjectNode args = JsonNodeFactory.instance.objectNode();
        ArrayNode options = args.putArray("options");
        votes.keySet().forEach(options::add);
        List<String> plan = positions.stream().map(Position::render).toList();
        ApprovalRequest request = new ApprovalRequest(
                ApprovalKind.TIE_BREAK,
                runId,
                runId,
                d.name(),
                d.name() + "-tie-break",
                "debate_tie_break",
                args,
                // Words for the person deciding: the options by name, never the JSON an edit carries.
                "Debate '" + d.name() + "' found no consensus in " + d.maxRounds() + " rounds. "
                        + (leader == null ? "Edit" : "Approve to take '" + leader + "', or edit")
                        + " the verdict to one of: " + String.join(", ", votes.keySet()) + ".",
                String.join("\n", plan),
                leader == null
                        ? null
                        : (double) votes.get(leader) / d.participants().size(),
                plan);
        ApprovalDecision decision;
        try {
            decision = humans.request(request).toCompletableFuture().get();
        } catch (ExecutionException e) {
            decision = new ApprovalDecision.Expired();
        }
        return switch (decision) {
            case ApprovalDecision.Approved a ->
                new WorkflowOutcome(
                        d.name(),
                        leader == null ? OutcomeStatus.FAILED : OutcomeStatus.OK,
                        leader,
                        leader == null ? FailureCode.NO_POSITIONS.failure("no participant stated a position") : null,
                        steps,
                        List.of(),
                        Map.of(),
                        null,
                        usage);
            case ApprovalDecision.ApprovedWithEdits e ->
                new WorkflowOutcome(
                        d.name(),
                        OutcomeStatus.OK,
                        e.arguments().path("verdict").asString(leader == null ? "" : leader),
                        null,
                        steps,
                        List.of(),
                        Map.of(),
                        null,
                        usage);
            case ApprovalDecision.Aborted a ->
                new WorkflowOutcome(
                        d.name(),
                        OutcomeStatus.DENIED,
                        null,
                        FailureCode.RUN_ABORTED.failure(
                                "the tie-break of debate '" + d.name() + "' aborted the run: " + a.comment()),
                        steps,
                        List.of(),
                        Map.of(),
                        null,
                        usage);
            case ApprovalDecision.Rejected r ->
                new WorkflowOutcome(
                        d.name(), OutcomeStatus.DENIED, null, null, steps, List.of(), Map.of(), null, usage);
            case ApprovalDecision.Expired x ->
                new WorkflowOutcome(
                        d.name(),
                        OutcomeStatus.FAILED,
                        null,
                        FailureCode.TIE_BREAK_EXPIRED.failure(
                                "debate '" + d.name() + "' had no consensus and no human broke the tie in time"),
                        steps,
                        List.of(),
                        Map.of(),
                        null,
                        usage);
        };
    }

    private record Position(String agent, String verdict, double confidence, String argument) {
        static Position of(String agent, @Nullable String text) {
            JsonNode json = Findings.json(text);
            if (json != null && json.isObject() && json.has("verdict")) {
                return new Position(
                        agent,
                        json.path("verdict").asString(""),
                        json.path("confidence").asDouble(0.5),
                        json.path("argument").asString(""));
            }
            String t = text == null ? "" : text.strip();
            int nl = t.indexOf('\n');
            return new Position(agent, nl < 0 ? t : t.substring(0, nl), 0.5, nl < 0 ? "" : t.substring(nl + 1));
        }

        String render() {
            return agent + ": " + verdict + " (confidence " + confidence + ")"
                    + (argument.isBlank() ? "" : " - " + argument);
        }
    }

    private static Map<String, Integer> votes(List<Position> positions) {
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (Position p : positions) {
            votes.merge(p.verdict().strip().toLowerCase(Locale.ROOT), 1, Integer::sum);
        }
        return votes;
    }

    private static @Nullable String leader(Map<String, Integer> votes) {
        String best = null;
        for (Map.Entry<String, Integer> e : votes.entrySet()) {
            if (best == null || e.getValue() > votes.get(best)) {
                best = e.getKey();
            }
        }
        return best;
    }
}
