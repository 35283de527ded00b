package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Instant PromQL queries against the configured Prometheus for the host team, each one a span
 * ({@code prometheus query}) carrying the query, the evaluation time and the number of series it
 * answered; a failure is a value naming the Prometheus URL, never an exception, so an inspector can
 * say exactly why it cannot see a host.
 */
final class PrometheusClient {

    static final AttributeKey<String> QUERY = AttributeKey.stringKey("cadre.prometheus.query");
    static final AttributeKey<Long> SERIES = AttributeKey.longKey("cadre.prometheus.series");
    static final AttributeKey<String> URL = AttributeKey.stringKey("cadre.prometheus.url");
    static final AttributeKey<String> AT = AttributeKey.stringKey("cadre.prometheus.time");
    /** The run a query serves, copied from the tool call's span: the run's trace store keeps only spans naming it. */
    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("cadre.run.id");

    private final OpsToolsProperties.Prometheus config;
    private final HttpClient http;
    private final JsonMapper json;
    private final Tracer tracer;

    PrometheusClient(OpsToolsProperties.Prometheus config, HttpClient http, JsonMapper json, OpenTelemetry otel) {
        this.config = config;
        this.http = http;
        this.json = json;
        this.tracer = otel.getTracer("dev.cadre.platform.tools.prometheus");
    }

    /** The Prometheus base URL, or null when {@code cadre.tools.prometheus.url} is not set. */
    @Nullable
    URI url() {
        return config.url();
    }

    /** One series of an instant vector: its labels and value. */
    record Sample(Map<String, String> labels, double value, double at) {
        String label(String name) {
            return labels.getOrDefault(name, "");
        }
    }

    /** What a query answered. */
    sealed interface Answer {
        /** The series (possibly none). */
        record Vector(String query, List<Sample> samples) implements Answer {}

        /** Prometheus could not be asked or refused: {@code category} as the failure taxonomy has it. */
        record Failed(String query, FailureCategory category, String code, String message) implements Answer {}
    }

    /** Evaluates {@code query} at {@code at}. */
    Answer query(String query, Instant at) {
        URI base = config.url();
        var builder = tracer.spanBuilder("prometheus query")
                .setAttribute(QUERY, query)
                .setAttribute(AT, at.toString())
                .setAttribute(URL, base == null ? "" : base.toString());
        if (Span.current() instanceof io.opentelemetry.sdk.trace.ReadableSpan parent
                && parent.getAttribute(RUN_ID) != null) {
            builder.setAttribute(RUN_ID, parent.getAttribute(RUN_ID));
        }
        Span span = builder.startSpan();
        try {
            Answer answer = ask(base, query, at);
            switch (answer) {
                case Answer.Vector v ->
                    span.setAttribute(SERIES, (long) v.samples().size());
                case Answer.Failed f -> {
                    span.setAttribute(SERIES, 0L);
                    span.setStatus(StatusCode.ERROR, f.code() + ": " + f.message());
                }
            }
            return answer;
        } finally {
            span.end();
        }
    }

    private Answer ask(@Nullable URI base, String query, Instant at) {
        if (base == null) {
            return new Answer.Failed(
                    query,
                    FailureCategory.EXECUTION_ERROR,
                    "not_configured",
                    "no Prometheus configured: set cadre.tools.prometheus.url (e.g. http://prometheus:9090)");
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put("query", query);
        params.put("time", Double.toString(at.toEpochMilli() / 1000.0));
        StringBuilder form = new StringBuilder();
        params.forEach((k, v) -> form.append(form.isEmpty() ? "" : "&")
                .append(k)
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
        String root = base.toString().replaceAll("/+$", "");
        HttpResponse<String> response;
        try {
            response = http.send(
                    HttpRequest.newBuilder(URI.create(root + "/api/v1/query"))
                            .timeout(config.timeout())
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(form.toString()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            return new Answer.Failed(
                    query,
                    FailureCategory.COMMUNICATION_ERROR,
                    "prometheus_timeout",
                    "Prometheus at " + root + " did not answer within " + config.timeout());
        } catch (IOException e) {
            String why = e instanceof ConnectException ? "connection refused or unreachable" : e.toString();
            return new Answer.Failed(
                    query,
                    FailureCategory.COMMUNICATION_ERROR,
                    "prometheus_unreachable",
                    "Prometheus at " + root + " (cadre.tools.prometheus.url) cannot be reached: " + why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer.Failed(
                    query, FailureCategory.COMMUNICATION_ERROR, "interrupted", "interrupted asking " + root);
        }
        JsonNode body;
        try {
            body = json.readTree(response.body());
        } catch (RuntimeException e) {
            return new Answer.Failed(
                    query,
                    FailureCategory.COMMUNICATION_ERROR,
                    "malformed_response",
                    "Prometheus at " + root + " answered HTTP " + response.statusCode()
                            + " with a body that is not JSON");
        }
        if (!"success".equals(body.path("status").asString())) {
            return new Answer.Failed(
                    query,
                    FailureCategory.EXECUTION_ERROR,
                    "promql_" + body.path("errorType").asString("error"),
                    "Prometheus at " + root + " refused the query (HTTP " + response.statusCode() + "): "
                            + body.path("error").asString(""));
        }
        List<Sample> samples = new ArrayList<>();
        JsonNode data = body.path("data");
        if (data.path("resultType").asString().equals("scalar")) {
            samples.add(new Sample(
                    Map.of(),
                    parse(data.path("result").path(1).asString()),
                    data.path("result").path(0).asDouble()));
        } else {
            for (JsonNode s : data.path("result")) {
                Map<String, String> labels = new LinkedHashMap<>();
                s.path("metric")
                        .properties()
                        .forEach(e -> labels.put(e.getKey(), e.getValue().asString()));
                samples.add(new Sample(
                        labels,
                        parse(s.path("value").path(1).asString()),
                        s.path("value").path(0).asDouble()));
            }
        }
        return new Answer.Vector(query, List.copyOf(samples));
    }

    private static double parse(String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }
}
