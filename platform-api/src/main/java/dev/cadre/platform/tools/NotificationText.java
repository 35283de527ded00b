package dev.cadre.platform.tools;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders a {@link Notifier.Notification} as the words a person reads in the ops channel: Slack Block
 * Kit (header, severity and target, what was found, what is proposed, buttons to the incident and the
 * approvals) or the generic JSON document (the same fields, structured, plus a plain-text rendering).
 *
 * <p>Text that came from outside the platform (an alert's labels and annotations) is never written
 * as the platform's own words: it is {@linkplain #quoted quoted} — one line, shortened, links
 * defanged ({@code https://} → {@code hxxps[:]//}), in a code span in Slack — and the generic format
 * carries it under {@code reported} with {@code "untrusted": true}.
 */
final class NotificationText {

    /** The severities a message shows as they are; anything else reads "unknown". */
    static final Set<String> SEVERITIES = Set.of("info", "low", "medium", "warning", "high", "critical");

    /** The most of one quoted value a message carries. */
    static final int MAX_QUOTED = 160;

    private final JsonMapper json;

    NotificationText(JsonMapper json) {
        this.json = json;
    }

    static String severity(@Nullable String s) {
        String v = s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
        return SEVERITIES.contains(v) ? v : "unknown";
    }

    /**
     * A value from outside the platform made safe to show as data: control characters and line breaks
     * become spaces, URLs lose their power to be clicked ({@code hxxps[:]//host}), Slack's control
     * characters and back-ticks are neutralised, and it is cut to {@link #MAX_QUOTED} characters.
     */
    static String quoted(@Nullable String raw) {
        if (raw == null) {
            return "";
        }
        String s = raw.replaceAll("[\\p{Cntrl}\\u2028\\u2029]+", " ").strip();
        s = s.replaceAll("(?i)\\bhttp(s?)://", "hxxp$1[:]//").replaceAll("(?i)\\b(ftp|file|javascript|data):", "$1[:]");
        s = s.replace('`', '\'').replace('<', '‹').replace('>', '›').replace("&", "and");
        if (s.length() > MAX_QUOTED) {
            s = s.substring(0, MAX_QUOTED - 1) + "…";
        }
        return s;
    }

    /** Slack Block Kit, with a plain {@code text} fallback (shown in notifications and old clients). */
    ObjectNode slack(Notifier.Notification n) {
        ObjectNode root = json.createObjectNode();
        root.put("text", plain(n));
        ArrayNode blocks = root.putArray("blocks");
        String icon = n.escalation() ? "🚨 " : n.severity().equals("critical") ? "🔴 " : "";
        blocks.addObject()
                .put("type", "header")
                .putObject("text")
                .put("type", "plain_text")
                .put("text", cut(icon + n.title(), 150));
        ArrayNode fields = blocks.addObject().put("type", "section").putArray("fields");
        fields.addObject().put("type", "mrkdwn").put("text", "*Severity*\n" + n.severity());
        fields.addObject()
                .put("type", "mrkdwn")
                .put("text", "*Target*\n" + (n.target() == null ? "not known" : "`" + quoted(n.target()) + "`"));
        section(blocks, "What was found", slackText(n.found()));
        if (n.proposed() != null && !n.proposed().isBlank()) {
            section(blocks, "What is proposed", slackText(n.proposed()));
        }
        if (!n.reported().isEmpty()) {
            StringBuilder r = new StringBuilder("*Reported by the alert (unverified, quoted as received)*");
            for (Notifier.Reported item : n.reported()) {
                r.append("\n• ")
                        .append(item.name())
                        .append(": `")
                        .append(quoted(item.value()))
                        .append('`');
            }
            blocks.addObject()
                    .put("type", "section")
                    .putObject("text")
                    .put("type", "mrkdwn")
                    .put("text", cut(r.toString(), 2900));
        }
        ArrayNode buttons = json.createArrayNode();
        if (n.incidentUrl() != null) {
            button(buttons, "Open the incident", n.incidentUrl());
        }
        for (Notifier.Link a : n.approvals()) {
            button(buttons, "Review the approval", a.url());
        }
        if (!buttons.isEmpty()) {
            blocks.addObject().put("type", "actions").set("elements", buttons);
        }
        StringBuilder context = new StringBuilder("Cadre");
        if (n.incident() != null) {
            context.append(" · incident ").append(n.incident());
        }
        if (n.runId() != null) {
            context.append(" · run ").append(n.runId());
        }
        blocks.addObject()
                .put("type", "context")
                .putArray("elements")
                .addObject()
                .put("type", "mrkdwn")
                .put("text", context.toString());
        return root;
    }

    /** The generic JSON document: every field structured, and {@code text} for a person. */
    ObjectNode generic(Notifier.Notification n, String at) {
        ObjectNode o = json.createObjectNode();
        o.put("source", "cadre");
        o.put("kind", n.escalation() ? "escalation" : "notification");
        o.put("title", n.title());
        o.put("severity", n.severity());
        o.put("target", n.target());
        o.put("found", n.found());
        o.put("proposed", n.proposed());
        o.put("text", plain(n));
        if (n.incident() != null) {
            o.putObject("incident").put("id", n.incident()).put("url", url(n.incidentUrl()));
        } else {
            o.putNull("incident");
        }
        ArrayNode approvals = o.putArray("approvals");
        for (Notifier.Link a : n.approvals()) {
            approvals.addObject().put("id", a.id()).put("url", url(a.url()));
        }
        if (!n.reported().isEmpty()) {
            ObjectNode reported = o.putObject("reported");
            reported.put("untrusted", true);
            ObjectNode values = reported.putObject("values");
            for (Notifier.Reported r : n.reported()) {
                values.put(r.name(), quoted(r.value()));
            }
        }
        o.put("runId", n.runId());
        o.put("agent", n.agent());
        o.put("at", at);
        return o;
    }

    /** The message as plain lines: Slack's fallback and the generic format's {@code text}. */
    static String plain(Notifier.Notification n) {
        StringBuilder b = new StringBuilder();
        b.append(n.title()).append('\n');
        b.append("Severity: ").append(n.severity());
        b.append(" · Target: ").append(n.target() == null ? "not known" : "\"" + quoted(n.target()) + "\"");
        b.append("\nFound: ").append(n.found());
        if (n.proposed() != null && !n.proposed().isBlank()) {
            b.append("\nProposed: ").append(n.proposed());
        }
        for (Notifier.Reported r : n.reported()) {
            b.append("\nReported by the alert (unverified) ")
                    .append(r.name())
                    .append(": \"")
                    .append(quoted(r.value()))
                    .append('"');
        }
        if (n.incidentUrl() != null) {
            b.append("\nIncident: ").append(n.incidentUrl());
        }
        for (Notifier.Link a : n.approvals()) {
            b.append("\nApproval: ").append(a.url() != null ? a.url() : a.id());
        }
        return b.toString();
    }

    private static void section(ArrayNode blocks, String heading, String text) {
        blocks.addObject()
                .put("type", "section")
                .putObject("text")
                .put("type", "mrkdwn")
                .put("text", cut("*" + heading + "*\n" + text, 2900));
    }

    private static void button(ArrayNode buttons, String label, @Nullable URI url) {
        if (url == null) {
            return;
        }
        ObjectNode b = buttons.addObject().put("type", "button");
        b.putObject("text").put("type", "plain_text").put("text", label);
        b.put("url", url.toString());
    }

    /** Agent-written text in Slack: its Markdown kept, Slack's own control characters escaped. */
    private static String slackText(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static @Nullable String url(@Nullable URI u) {
        return u == null ? null : u.toString();
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }

    static List<Notifier.Link> none() {
        return List.of();
    }
}
