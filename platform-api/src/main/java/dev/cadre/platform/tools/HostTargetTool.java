package dev.cadre.platform.tools;

import dev.cadre.agent.model.UntrustedText;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code host_target}: which host a request is about, before anyone inspects anything — the alert's
 * host (the intake's reading of its labels), a host a person named in a field or in their words
 * ("why is db-2 slow?", matched against the instances Prometheus scrapes), or the platform's own
 * machine when that is what they ask about. Answers {@code kind} {@code host}, {@code platform} or
 * {@code unknown} (with why), so the team never falls back to inspecting a machine nobody asked about.
 */
final class HostTargetTool implements Tool {

    private static final Pattern PLATFORM = Pattern.compile(
            "(?i)\\b(platform(?:'s)? (?:own )?(?:host|machine)|cadre(?:'s)? (?:own )?(?:host|machine)|this machine|localhost)\\b");
    /** A word that looks like a host name: has a digit or a dot or a hyphen inside, e.g. db-2, web01, a.b.c. */
    private static final Pattern HOSTISH = Pattern.compile(
            "(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)+|[A-Za-z]+[0-9]+)(?::[0-9]{1,5})?(?![A-Za-z0-9_-])");

    private final PrometheusClient prometheus;
    private final JsonMapper json;
    private final Clock clock;

    HostTargetTool(PrometheusClient prometheus, JsonMapper json, Clock clock) {
        this.prometheus = prometheus;
        this.json = json;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "host_target";
    }

    @Override
    public String description() {
        return "Find which host a request is about before inspecting: give 'alert' (the alert's host object from the"
                + " run's context, if any), 'host' (a host a person named in a field) and/or 'request' (their words)."
                + " Answers kind 'host' with name and instance (the Prometheus instance label when it scrapes it),"
                + " 'platform' (they ask about Cadre's own machine) or 'unknown' with why. Read-only.";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"alert\":{\"description\":\"the alert's host as the run's context gives it ({name, instance, startsAt})\"},"
                + "\"host\":{\"type\":\"string\",\"maxLength\":253,\"description\":\"a host named in a field\"},"
                + "\"request\":{\"type\":\"string\",\"maxLength\":20000,\"description\":\"the person's request\"}},"
                + "\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) {
        JsonNode alert = args.path("alert");
        if (alert.isString() && alert.asString().strip().startsWith("{")) {
            try {
                alert = json.readTree(alert.asString());
            } catch (RuntimeException e) {
                alert = json.missingNode();
            }
        }
        if (alert.isObject() && !alert.path("name").asString("").isBlank()) {
            return host(new HostTarget(
                            alert.path("name").asString(),
                            alert.path("instance").asString(""),
                            alert.path("source").asString("alert labels"),
                            alert.path("startsAt").asString("").isBlank()
                                    ? null
                                    : alert.path("startsAt").asString()))
                    .toString();
        }
        String field = args.path("host").asString("").strip();
        if (!field.isEmpty() && !HostTarget.safe(field).isEmpty()) {
            if (PLATFORM.matcher(field).find()) {
                return platform("the host field names the platform's own machine")
                        .toString();
            }
            String safe = HostTarget.safe(field);
            return host(new HostTarget(
                            HostTarget.withoutPort(safe), safe.contains(":") ? safe : null, "host field", null))
                    .toString();
        }
        // The person's own words only: fenced data (alert annotations, A2A messages) never picks a host.
        String request = UntrustedText.withoutFences(args.path("request").asString(""));
        List<String> known = knownInstances();
        for (String instance : known) {
            String name = HostTarget.withoutPort(instance);
            if (Pattern.compile(
                            "(?<![A-Za-z0-9_.-])" + Pattern.quote(name) + "(?![A-Za-z0-9_-])", Pattern.CASE_INSENSITIVE)
                    .matcher(request)
                    .find()) {
                return host(new HostTarget(name, instance, "request text, matched to a scraped instance", null))
                        .toString();
            }
        }
        if (PLATFORM.matcher(request).find()) {
            return platform("the request asks about the platform's own machine").toString();
        }
        Matcher m = HOSTISH.matcher(request);
        while (m.find()) {
            String word = m.group(1);
            if (!word.toLowerCase(Locale.ROOT).matches("(https?|utf-?8|ipv[46]|sha[0-9]+|base64|run_.*)")) {
                return host(new HostTarget(word, null, "request text", null)).toString();
            }
        }
        ObjectNode out = json.createObjectNode();
        out.put("kind", "unknown");
        out.put(
                "reason",
                "the request names no host"
                        + (known.isEmpty() ? "" : " Prometheus scrapes (known: " + String.join(", ", known) + ")")
                        + ": ask which host to look at");
        return out.toString();
    }

    private ObjectNode host(HostTarget t) {
        ObjectNode out = json.createObjectNode();
        out.put("kind", "host");
        out.put("name", t.name());
        if (t.instance() != null) {
            out.put("instance", t.instance());
        }
        out.put("source", t.source());
        if (t.startsAt() != null) {
            out.put("startsAt", t.startsAt());
        }
        return out;
    }

    private ObjectNode platform(String why) {
        ObjectNode out = json.createObjectNode();
        out.put("kind", "platform");
        out.put("name", "platform host");
        out.put("source", why);
        return out;
    }

    /** The instances Prometheus scrapes now (empty when it is not configured or cannot be asked). */
    private List<String> knownInstances() {
        if (prometheus.url() == null) {
            return List.of();
        }
        return switch (prometheus.query("count by (instance) (up)", clock.instant())) {
            case PrometheusClient.Answer.Vector v ->
                v.samples().stream()
                        .map(s -> s.label("instance"))
                        .filter(i -> !i.isBlank())
                        .sorted()
                        .limit(500)
                        .toList();
            case PrometheusClient.Answer.Failed f -> List.of();
        };
    }
}
