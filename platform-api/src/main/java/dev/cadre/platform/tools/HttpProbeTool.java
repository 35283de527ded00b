package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code http_probe}: status, latency and TLS certificate expiry of a URL. An unreachable target is
 * a probe result ({@code ok: false}), not a tool failure: "it is down" is exactly what was asked.
 */
final class HttpProbeTool implements Tool {

    private final OpsToolsProperties.Probe config;
    private final JsonMapper json;
    private final Clock clock;
    private final HttpClient verifying;
    private final HttpClient trustingAll;

    HttpProbeTool(OpsToolsProperties.Probe config, JsonMapper json, Clock clock) {
        this.config = config;
        this.json = json;
        this.clock = clock;
        this.verifying = HttpClient.newBuilder()
                .connectTimeout(config.timeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        this.trustingAll = HttpClient.newBuilder()
                .connectTimeout(config.timeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .sslContext(trustAll())
                .build();
    }

    @Override
    public String name() {
        return "http_probe";
    }

    @Override
    public String description() {
        return "Probe an http(s) URL once: HTTP status, latency in ms, and for https the server certificate's"
                + " subject, expiry date and days left. verifyTls=false still reports the certificate of a server"
                + " with a private CA. Read-only (GET or HEAD).";
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"url\":{\"type\":\"string\",\"minLength\":8,\"maxLength\":2000},"
                + "\"method\":{\"type\":\"string\",\"enum\":[\"GET\",\"HEAD\"]},"
                + "\"expectStatus\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":599},"
                + "\"verifyTls\":{\"type\":\"boolean\"},"
                + "\"timeoutMillis\":{\"type\":\"integer\",\"minimum\":100,\"maximum\":60000}},"
                + "\"required\":[\"url\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws Exception {
        URI uri;
        try {
            uri = URI.create(args.get("url").asString());
        } catch (IllegalArgumentException e) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_url", e.getMessage());
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "invalid_url", "only http and https URLs can be probed");
        }
        Duration timeout = args.has("timeoutMillis")
                ? Duration.ofMillis(args.get("timeoutMillis").asLong())
                : config.timeout();
        String method = args.path("method").asString("GET");
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("User-Agent", "cadre-http-probe")
                .method(method, HttpRequest.BodyPublishers.noBody())
                .build();
        boolean verify = args.path("verifyTls").asBoolean(true);
        ObjectNode out = json.createObjectNode();
        out.put("url", uri.toString());
        long t0 = System.nanoTime();
        try {
            HttpResponse<Void> response =
                    (verify ? verifying : trustingAll).send(request, HttpResponse.BodyHandlers.discarding());
            long latency = (System.nanoTime() - t0) / 1_000_000;
            int expect = args.path("expectStatus").asInt(0);
            out.put("status", response.statusCode());
            out.put("latencyMillis", latency);
            out.put("ok", expect == 0 ? response.statusCode() < 400 : response.statusCode() == expect);
            response.sslSession().ifPresent(s -> tls(out.putObject("tls"), s));
        } catch (IOException e) {
            out.put("ok", false);
            out.put("latencyMillis", (System.nanoTime() - t0) / 1_000_000);
            out.put("error", e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            if (e instanceof javax.net.ssl.SSLException) {
                out.put("hint", "TLS failed; verifyTls=false shows the certificate anyway");
            }
        }
        return out.toString();
    }

    private void tls(ObjectNode o, SSLSession session) {
        o.put("protocol", session.getProtocol());
        try {
            Certificate[] chain = session.getPeerCertificates();
            if (chain.length > 0 && chain[0] instanceof X509Certificate cert) {
                Instant notAfter = cert.getNotAfter().toInstant();
                o.put("subject", cert.getSubjectX500Principal().getName());
                o.put("issuer", cert.getIssuerX500Principal().getName());
                o.put("notAfter", notAfter.toString());
                o.put("daysLeft", Duration.between(clock.instant(), notAfter).toDays());
            }
        } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
            o.put("certificate", "unverified: " + e.getMessage());
        }
    }

    private static SSLContext trustAll() {
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    null,
                    new TrustManager[] {
                        new X509TrustManager() {
                            @Override
                            public void checkClientTrusted(X509Certificate[] chain, String authType) {}

                            @Override
                            public void checkServerTrusted(X509Certificate[] chain, String authType) {}

                            @Override
                            public X509Certificate[] getAcceptedIssuers() {
                                return new X509Certificate[0];
                            }
                        }
                    },
                    null);
            return context;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
