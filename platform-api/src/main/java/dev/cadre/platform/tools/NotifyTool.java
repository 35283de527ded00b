package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.outbox.DeliveryState;
import dev.cadre.platform.outbox.OutboxListener;
import dev.cadre.platform.tenancy.TeamScope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code notify}: a message to the ops channel's webhook, risk {@code SUGGEST} (it runs, and is
 * flagged and journalled). The message goes through the durable outbox: the tool waits briefly for
 * the first attempt and says truthfully whether it was delivered, refused or is being retried. About
 * an incident it sends at most one alert per notify window, counted from the last one delivered — a
 * failed send never silences the incident. It acts outside the platform ({@link
 * dev.cadre.platform.agents.Outward}): in a run no person submitted it waits for a human first.
 */
final class NotifyTool implements Tool, dev.cadre.platform.agents.Outward {

    /** The longest the tool waits for the first attempt; later ones go on in the background. */
    static final Duration MAX_WAIT = Duration.ofSeconds(15);

    private final Notifier notifier;
    private final IncidentService incidents;
    private final @Nullable ApprovalService approvals;
    private final JsonMapper json;
    private final Duration wait;

    NotifyTool(
            Notifier notifier,
            IncidentService incidents,
            @Nullable ApprovalService approvals,
            JsonMapper json,
            Duration attemptTimeout) {
        this.notifier = notifier;
        this.incidents = incidents;
        this.approvals = approvals;
        this.json = json;
        Duration w = attemptTimeout.plusSeconds(2);
        this.wait = w.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : w;
    }

    @Override
    public String name() {
        return "notify";
    }

    @Override
    public String description() {
        return "Send a message to the ops channel (webhook: generic JSON or Slack). Give a short title, what was"
                + " found (text) and, if any, what you propose. About an incident (given, or the one this run works"
                + " on) it is sent at most once per notify window; later calls answer sent=false with the reason."
                + " A message the webhook does not take at once is retried in the background (queued=true).";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200},"
                + "\"text\":{\"type\":\"string\",\"maxLength\":4000,\"description\":\"what was found\"},"
                + "\"proposed\":{\"type\":\"string\",\"maxLength\":2000,\"description\":\"what is proposed\"},"
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
        incident.ifPresent(i -> out.put("incident", i.id()));
        Notifier.Message message = new Notifier.Message(
                args.get("title").asString(),
                cut(args.get("text").asString(), 3000),
                args.path("severity").asString("info"),
                args.has("proposed") ? cut(args.get("proposed").asString(), 2000) : null,
                incident.map(Incident::id).orElse(null),
                ctx.runId(),
                ctx.agent(),
                ctx.callId(),
                pendingApprovals(ctx.runId()));
        switch (notifier.notify(message)) {
            case Notifier.Outcome.NotConfigured nc -> {
                out.put("sent", false);
                out.put("detail", nc.detail());
                return out.toString();
            }
            case Notifier.Outcome.AlreadyNotified already -> {
                out.put("sent", false);
                out.put("reason", already.reason());
                return out.toString();
            }
            case Notifier.Outcome.Queued queued -> {
                out.put("deliveryId", queued.delivery().id());
                Optional<OutboxListener.Settlement> first =
                        notifier.firstAttempt(queued.delivery().id(), wait);
                if (first.isEmpty()) {
                    out.put("sent", false);
                    out.put("queued", true);
                    out.put(
                            "detail",
                            "not attempted yet; it is delivered in the background and the outcome"
                                    + " recorded on the incident");
                    return out.toString();
                }
                OutboxListener.Settlement s = first.get();
                if (s.status() != 0) {
                    out.put("httpStatus", s.status());
                }
                if (s.state() == DeliveryState.DELIVERED) {
                    out.put("sent", true);
                    out.put("detail", "delivered");
                    return out.toString();
                }
                if (s.state() == DeliveryState.FAILED) {
                    throw new ToolException(
                            dev.cadre.agent.FailureCategory.COMMUNICATION_ERROR,
                            "webhook_refused",
                            "the webhook did not take the notification: " + s.error());
                }
                out.put("sent", false);
                out.put("queued", true);
                out.put(
                        "detail",
                        "not delivered yet (" + s.error() + "); retried with backoff in the background,"
                                + " and recorded on the incident as sent once the webhook answers 2xx");
                return out.toString();
            }
        }
    }

    /** The run's approvals still waiting for a person: the message links to them. */
    private List<String> pendingApprovals(String runId) {
        List<String> ids = new ArrayList<>();
        if (approvals != null) {
            for (ApprovalRecord a :
                    approvals.list(TeamScope.allTeams("the run notifying, by its own id"), "pending", runId, null, 5)) {
                ids.add(a.id());
            }
        }
        return ids;
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
