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
    private static final Pattern LOCAL = Pattern.compile("(?i)localhost|127\\.0\\.0\\.1|::1");
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
            if (LOCAL.matcher(alert.path("name").asString()).matches()) {
                return platform("the alert is about the machine Cadre runs on").toString();
            }
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
        // The platform's own words first; then the request's data (an A2A or MCP message arrives fenced as
        // untrusted text): naming a host there only chooses what is looked at, never a variant or a repair.
        String raw = args.path("request").asString("").replaceAll("(<|&lt;)/?untrusted-data[^>&]*(>|&gt;)", " ");
        List<String> known = knownInstances();
        for (String text : List.of(UntrustedText.withoutFences(raw), raw)) {
            ObjectNode found = fromText(text, known);
            if (found != null) {
                return found.toString();
            }
        }
        ObjectNode out = json.createObjectNode();
        out.put("kind", "unknown");
        out.put("reach", "unknown");
        out.put(
                "reason",
                "the request names no host"
                        + (known.isEmpty() ? "" : " Prometheus scrapes (known: " + String.join(", ", known) + ")")
                        + ": ask which host to look at");
        return out.toString();
    }

    /**
     * The host's answer, with {@code reach}: {@code host} when Prometheus has series for it, else
     * {@code unseen} and {@code why} (no Prometheus configured, unreachable, no series for the instance),
     * so nobody repairs a host the team could not look at.
     */
    private @org.jspecify.annotations.Nullable ObjectNode fromText(String request, List<String> known) {
        for (String instance : known) {
            String name = HostTarget.withoutPort(instance);
            if (Pattern.compile(
                            "(?<![A-Za-z0-9_.-])" + Pattern.quote(name) + "(?![A-Za-z0-9_-])", Pattern.CASE_INSENSITIVE)
                    .matcher(request)
                    .find()) {
                return host(new HostTarget(name, instance, "request text, matched to a scraped instance", null));
            }
        }
        if (PLATFORM.matcher(request).find()) {
            return platform("the request asks about the platform's own machine");
        }
        Matcher m = HOSTISH.matcher(request);
        while (m.find()) {
            String word = m.group(1);
            if (!word.toLowerCase(Locale.ROOT)
                    .matches("(https?|utf-?8|ipv[46]|sha[0-9]+|base64|run_.*|inc-.*|a2a|mcp)")) {
                return host(new HostTarget(word, null, "request text", null));
            }
        }
        return null;
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
        String why = unseen(t);
        out.put("reach", why == null ? "host" : "unseen");
        if (why != null) {
            out.put("why", why);
        }
        return out;
    }

    /** Why Prometheus cannot show this host now, or null when it has an {@code up} series for it. */
    private @org.jspecify.annotations.Nullable String unseen(HostTarget t) {
        if (prometheus.url() == null) {
            return "no Prometheus configured: cadre.tools.prometheus.url is not set";
        }
        String sel = t.instance() != null
                ? "instance=\"" + t.instance() + "\""
                : "instance=~\"" + t.name().replace(".", "\\\\.") + "(:[0-9]+)?\"";
        return switch (prometheus.query("up{" + sel + "}", clock.instant())) {
            case PrometheusClient.Answer.Vector v ->
                v.samples().isEmpty()
                        ? "no data for instance " + (t.instance() != null ? t.instance() : t.name())
                                + " in Prometheus at " + prometheus.url()
                        : null;
            case PrometheusClient.Answer.Failed f -> f.message();
        };
    }

    private ObjectNode platform(String why) {
        ObjectNode out = json.createObjectNode();
        out.put("kind", "platform");
        out.put("reach", "platform");
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
