package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import java.io.IOException;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code notify}: a message to the ops channel's webhook, risk {@code SUGGEST} (it runs, and is
 * flagged and journalled). About an incident it sends at most one alert per notify window — the
 * 3 a.m. pager storm of seed 003 is exactly the same alert sent again and again. It acts outside the
 * platform ({@link dev.cadre.platform.agents.Outward}): in a run no person submitted it waits for a
 * human first.
 */
final class NotifyTool implements Tool, dev.cadre.platform.agents.Outward {

    private final Notifier notifier;
    private final IncidentService incidents;
    private final JsonMapper json;

    NotifyTool(Notifier notifier, IncidentService incidents, JsonMapper json) {
        this.notifier = notifier;
        this.incidents = incidents;
        this.json = json;
    }

    @Override
    public String name() {
        return "notify";
    }

    @Override
    public String description() {
        return "Send a message to the ops channel (webhook: generic JSON or Slack-compatible). About an incident"
                + " (given, or the one this run works on) it is sent at most once per notify window; later calls"
                + " answer sent=false with the reason.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                + "\"text\":{\"type\":\"string\",\"maxLength\":4000},"
                + "\"severity\":{\"type\":\"string\",\"enum\":[\"info\",\"low\",\"medium\",\"high\",\"critical\"]},"
                + "\"incident\":{\"type\":\"string\"}},"
                + "\"required\":[\"title\",\"text\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.SUGGEST;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws Exception {
        Optional<Incident> incident =
                args.has("incident") ? incidents.get(args.get("incident").asString()) : incidents.forRun(ctx.runId());
        ObjectNode out = json.createObjectNode();
        String text = args.get("text").asString();
        if (text.length() > 3000) {
            text = text.substring(0, 2999) + "…";
        }
        if (incident.isPresent()) {
            out.put("incident", incident.get().id());
            if (!incidents.claimNotification(incident.get().id(), "alert", Writer.agent(ctx.agent(), ctx.runId()))) {
                out.put("sent", false);
                out.put(
                        "reason",
                        "already notified about incident " + incident.get().id() + " within "
                                + incidents.settings().notifyWindow() + "; not sent again");
                return out.toString();
            }
        }
        Notifier.Message message = new Notifier.Message(
                args.get("title").asString(),
                text,
                args.path("severity").asString("info"),
                incident.map(Incident::id).orElse(null),
                ctx.runId(),
                ctx.agent());
        try {
            Notifier.Delivery d = notifier.send(message, false);
            out.put("sent", d.sent());
            if (d.httpStatus() != 0) {
                out.put("httpStatus", d.httpStatus());
            }
            out.put("detail", d.detail());
            if (!d.sent() && d.httpStatus() != 0) {
                throw new ToolException(
                        dev.cadre.agent.FailureCategory.COMMUNICATION_ERROR, "webhook_refused", d.detail());
            }
            return out.toString();
        } catch (IOException e) {
            throw HttpErrors.of("notification webhook", e);
        }
    }
}
