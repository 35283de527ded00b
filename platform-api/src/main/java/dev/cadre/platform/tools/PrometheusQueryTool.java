package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code prometheus_query}: instant and range PromQL against the configured Prometheus HTTP API
 * ({@code /api/v1/query}, {@code /api/v1/query_range}), answered as a compact summary per series so
 * a long range does not flood the model's context.
 */
final class PrometheusQueryTool implements Tool {

    private static final Pattern RELATIVE = Pattern.compile("now(?:-(\\w+))?|-(\\w+)");

    private final OpsToolsProperties.Prometheus config;
    private final HttpClient http;
    private final JsonMapper json;
    private final Clock clock;

    PrometheusQueryTool(OpsToolsProperties.Prometheus config, HttpClient http, JsonMapper json, Clock clock) {
        this.config = config;
        this.http = http;
        this.json = json;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "prometheus_query";
    }

    @Override
    public String description() {
        return "Run a PromQL query against Prometheus. Instant by default; give start (and optionally end, step)"
                + " for a range query. Times are RFC 3339, unix seconds, 'now' or relative like '-15m'."
                + " Returns per series its labels and value (instant) or point count, min, max and last (range).";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4000},"
                + "\"time\":{\"type\":\"string\"},\"start\":{\"type\":\"string\"},\"end\":{\"type\":\"string\"},"
                + "\"step\":{\"type\":\"string\",\"description\":\"e.g. 15s, 1m (default: range/100, at least 1s)\"}},"
                + "\"required\":[\"query\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws Exception {
        if (config.url() == null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "not_configured",
                    "no Prometheus configured: set cadre.tools.prometheus.url (e.g. http://prometheus:9090)");
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("query", args.get("query").asString());
        String path;
        boolean range = args.has("start");
        try {
            if (range) {
                Instant start = time(args.get("start").asString());
                Instant end = args.has("end") ? time(args.get("end").asString()) : clock.instant();
                if (!end.isAfter(start)) {
                    throw new ToolException(
                            FailureCategory.EXECUTION_ERROR, "invalid_arguments", "end must be after start");
                }
                Duration step = args.has("step")
                        ? DurationStyle.detectAndParse(args.get("step").asString())
                        : Duration.ofMillis(
                                Math.max(1000, Duration.between(start, end).toMillis() / 100));
                params.put("start", seconds(start));
                params.put("end", seconds(end));
                params.put("step", Double.toString(step.toMillis() / 1000.0));
                path = "/api/v1/query_range";
            } else {
                if (args.has("time")) {
                    params.put("time", seconds(time(args.get("time").asString())));
                }
                path = "/api/v1/query";
            }
        } catch (IllegalArgumentException | java.time.format.DateTimeParseException e) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_arguments", e.getMessage());
        }
        StringBuilder form = new StringBuilder();
        params.forEach((k, v) -> form.append(form.isEmpty() ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        String base = config.url().toString().replaceAll("/+$", "");
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(config.timeout())
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form.toString()))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw HttpErrors.of("Prometheus query", e);
        }
        JsonNode body;
        try {
            body = json.readTree(response.body());
        } catch (RuntimeException e) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR,
                    "malformed_response",
                    "Prometheus answered HTTP " + response.statusCode() + " with a body that is not JSON");
        }
        if (!"success".equals(body.path("status").asString())) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "promql_" + body.path("errorType").asString("error"),
                    "Prometheus refused the query (HTTP " + response.statusCode() + "): "
                            + body.path("error").asString(response.body()));
        }
        return summarise(body.path("data"), range).toString();
    }

    private ObjectNode summarise(JsonNode data, boolean range) {
        ObjectNode out = json.createObjectNode();
        String type = data.path("resultType").asString();
        out.put("resultType", type);
        JsonNode result = data.path("result");
        ArrayNode series = out.putArray("series");
        int n = 0;
        if (type.equals("scalar") || type.equals("string")) {
            out.put("value", result.path(1).asString());
            out.put("seriesCount", 0);
            return out;
        }
        for (JsonNode s : result) {
            if (n++ >= config.maxSeries()) {
                continue;
            }
            ObjectNode o = series.addObject();
            o.set("labels", s.path("metric"));
            if (s.has("value")) {
                o.put("value", s.path("value").path(1).asString());
                o.put("at", s.path("value").path(0).asDouble());
            } else {
                JsonNode values = s.path("values");
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                for (JsonNode v : values) {
                    double d = parse(v.path(1).asString());
                    min = Math.min(min, d);
                    max = Math.max(max, d);
                }
                o.put("points", values.size());
                if (!values.isEmpty()) {
                    o.put("min", min);
                    o.put("max", max);
                    o.put("last", values.get(values.size() - 1).path(1).asString());
                    o.put("first", values.get(0).path(1).asString());
                }
            }
        }
        out.put("seriesCount", result.size());
        if (result.size() > config.maxSeries()) {
            out.put("truncated", "only the first " + config.maxSeries() + " series are shown; narrow the query");
        }
        out.put("range", range);
        return out;
    }

    private static double parse(String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private Instant time(String text) {
        String t = text.trim();
        Matcher m = RELATIVE.matcher(t);
        if (m.matches()) {
            String ago = m.group(1) != null ? m.group(1) : m.group(2);
            return ago == null ? clock.instant() : clock.instant().minus(DurationStyle.SIMPLE.parse(ago));
        }
        if (t.matches("\\d+(\\.\\d+)?")) {
            return Instant.ofEpochMilli((long) (Double.parseDouble(t) * 1000));
        }
        return Instant.parse(t);
    }

    private static String seconds(Instant t) {
        return Double.toString(t.toEpochMilli() / 1000.0);
    }
}
