package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.tenancy.TeamScope;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code ask_human}: a question to the operator, the collaboration depth of human-in-the-loop. It is
 * built on the durable approval gate: risk {@code APPROVE}, so the loop files an approval request of
 * kind {@code TOOL_CALL} whose {@code what} carries the question, the run shows {@code input-required}
 * and the request survives a restart. The operator answers by approving with a comment, or with
 * edited arguments holding {@code answer}; rejecting with a comment is an answer the model reads too
 * ("don't, because …"); no answer in time is {@code HUMAN_INTERVENTION_TIMEOUT}.
 */
final class AskHumanTool implements Tool {

    private final ApprovalService approvals;
    private final JsonMapper json;

    AskHumanTool(ApprovalService approvals, JsonMapper json) {
        this.approvals = approvals;
        this.json = json;
    }

    @Override
    public String name() {
        return "ask_human";
    }

    @Override
    public String description() {
        return "Ask the human operator a question and wait for the answer (the run waits in input-required)."
                + " Use it when a decision is not yours to take or after an incident is escalated. The result is"
                + " the operator's answer.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"question\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":800},"
                + "\"context\":{\"type\":\"string\",\"maxLength\":4000},"
                + "\"answer\":{\"type\":\"string\",\"maxLength\":4000,"
                + "\"description\":\"filled in by the operator, never by the agent\"}},"
                + "\"required\":[\"question\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.APPROVE;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) {
        ObjectNode out = json.createObjectNode();
        out.put("question", args.get("question").asString());
        Optional<ApprovalRecord> record =
                approvals
                        .list(TeamScope.allTeams("the run asking, by its own id"), null, ctx.runId(), null, 500)
                        .stream()
                        .filter(r ->
                                r.callId().equals(ctx.callId()) && r.sessionId().equals(ctx.sessionId()))
                        .findFirst();
        String answer = args.path("answer").asString("");
        if (answer.isBlank()) {
            answer = record.map(ApprovalRecord::comment).orElse("");
        }
        out.put("answer", answer.isBlank() ? "(the operator acknowledged without an answer)" : answer);
        record.map(ApprovalRecord::decidedBy).ifPresent(by -> out.put("answeredBy", by));
        return out.toString();
    }
}
