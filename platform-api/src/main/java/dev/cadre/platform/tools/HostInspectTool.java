package dev.cadre.platform.tools;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code host_inspect}: CPU, memory, disk or network of one host — the alert's instance, not the
 * platform's machine — from that instance's node_exporter series in Prometheus, over a window around
 * the alert's start compared with the hours before. Every finding names the host and carries the
 * PromQL and the values as evidence; when the host cannot be seen (no Prometheus configured,
 * Prometheus unreachable, no series for the instance) the answer says exactly that, as a finding.
 */
final class HostInspectTool implements Tool {

    private final HostSignals signals;
    private final OpsToolsProperties.HostInspect config;
    private final Clock clock;

    HostInspectTool(HostSignals signals, OpsToolsProperties.HostInspect config, Clock clock) {
        this.signals = signals;
        this.config = config;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "host_inspect";
    }

    @Override
    public String description() {
        return "Inspect one host through Prometheus (its node_exporter series): cpu (busy share by mode, load per"
                + " core, iowait, steal), memory (available, swap in/out, OOM kills), disk (free space and inodes per"
                + " file system, fill rate and hours to full, IO busy time), network (errors and drops) or all."
                + " Give the host as the alert names it (instance 'web-1:9100' or name 'web-1') and, for an alert,"
                + " its startsAt: the window around it is compared with the " + human(config.baseline())
                + " before. Returns the numbers and standard findings naming the host, each with the PromQL and"
                + " values as evidence. When the host cannot be seen (Prometheus not configured or unreachable, no"
                + " series for that instance) it says so as a finding: report that, never another machine. Read-only.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"host\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":253,"
                + "\"description\":\"the host's name or instance label, e.g. web-1 or web-1:9100\"},"
                + "\"instance\":{\"type\":\"string\",\"maxLength\":253,"
                + "\"description\":\"the exact instance label when known (wins over host)\"},"
                + "\"resource\":{\"type\":\"string\",\"enum\":[\"cpu\",\"memory\",\"disk\",\"network\",\"all\"]},"
                + "\"startsAt\":{\"type\":\"string\",\"maxLength\":64,"
                + "\"description\":\"RFC 3339 time the alert started (default: now)\"}},"
                + "\"required\":[\"host\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) {
        String given = args.path("host").asString("");
        String instance = args.path("instance").asString("");
        String name = HostTarget.withoutPort(HostTarget.safe(instance.isBlank() ? given : instance));
        if (name.isEmpty()) {
            name = HostTarget.withoutPort(HostTarget.safe(given));
        }
        if (instance.isBlank() && given.contains(":")) {
            instance = given;
        }
        String startsAt = args.path("startsAt").asString("").strip();
        HostTarget target = new HostTarget(
                name.isEmpty() ? "unknown" : name, instance, "arguments", startsAt.isEmpty() ? null : startsAt);
        HostSignals.Window window = window(startsAt);
        String resource = args.path("resource").asString("all");
        ObjectNode out = signals.inspect(target, resource, window);
        return out.toString();
    }

    /** The window around the alert's start (or the last window), and the baseline before it. */
    HostSignals.Window window(String startsAt) {
        Instant now = clock.instant();
        Instant at = now;
        if (!startsAt.isEmpty()) {
            try {
                at = Instant.parse(startsAt);
            } catch (DateTimeParseException e) {
                at = now;
            }
        }
        Duration w = config.window();
        Instant to = at.plus(w.dividedBy(2));
        to = to.isAfter(now) ? now : to;
        Instant from = startsAt.isEmpty() ? to.minus(w) : at.minus(w.dividedBy(2));
        if (Duration.between(from, to).compareTo(Duration.ofMinutes(1)) < 0) {
            from = to.minus(Duration.ofMinutes(1));
        }
        return new HostSignals.Window(from, to, config.baseline());
    }

    static String human(Duration d) {
        return d.toMinutes() % 60 == 0 && d.toHours() > 0 ? d.toHours() + " hours" : d.toMinutes() + " minutes";
    }
}
