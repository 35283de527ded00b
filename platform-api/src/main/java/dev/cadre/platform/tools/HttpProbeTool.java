package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code http_probe}: status, latency and TLS certificate expiry of a URL. An unreachable target is
 * a probe result ({@code ok: false}), not a tool failure: "it is down" is exactly what was asked.
 *
 * <p>The probe speaks HTTP/1.1 over its own socket so that it connects to exactly the address
 * {@link ProbeTargets} checked (an HTTP client would resolve the name again). It sends one request
 * line and reads only the status line.
 */
final class HttpProbeTool implements Tool {

    private final OpsToolsProperties.Probe config;
    private final ProbeTargets targets;
    private final JsonMapper json;
    private final Clock clock;
    private final SSLSocketFactory verifying;
    private final SSLSocketFactory trustingAll;

    HttpProbeTool(OpsToolsProperties.Probe config, JsonMapper json, Clock clock) {
        this(config, new ProbeTargets(config.allow(), InetAddress::getAllByName), json, clock);
    }

    HttpProbeTool(OpsToolsProperties.Probe config, ProbeTargets targets, JsonMapper json, Clock clock) {
        this.config = config;
        this.targets = targets;
        this.json = json;
        this.clock = clock;
        this.verifying = (SSLSocketFactory) SSLSocketFactory.getDefault();
        this.trustingAll = trustAll().getSocketFactory();
    }

    @Override
    public String name() {
        return "http_probe";
    }

    @Override
    public String description() {
        return "Probe an http(s) URL once: HTTP status, latency in ms, and for https the server certificate's"
                + " subject, expiry date and days left. verifyTls=false still reports the certificate of a server"
                + " with a private CA. Read-only (GET or HEAD). Only allowed targets: public addresses unless the"
                + " operator configured others; internal addresses are refused.";
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
            uri = new URI(args.get("url").asString());
        } catch (URISyntaxException e) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "invalid_url", e.getMessage());
        }
        boolean https = "https".equals(uri.getScheme());
        if (!"http".equals(uri.getScheme()) && !https) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "invalid_url", "only http and https URLs can be probed");
        }
        if (uri.getHost() == null || uri.getRawUserInfo() != null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "invalid_url",
                    "the URL needs a host and no user:password@ part (credentials are never sent by a probe)");
        }
        // The model may ask for less time than configured, never for more.
        Duration timeout = config.timeout();
        if (args.has("timeoutMillis")) {
            Duration asked = Duration.ofMillis(args.get("timeoutMillis").asLong());
            timeout = asked.compareTo(config.maxTimeout()) > 0 ? config.maxTimeout() : asked;
        }
        String method = args.path("method").asString("GET");
        boolean verify = args.path("verifyTls").asBoolean(true);
        int port = uri.getPort() > 0 ? uri.getPort() : https ? 443 : 80;
        InetAddress address;
        try {
            address = targets.resolve(uri.getHost());
        } catch (ProbeTargets.Denied e) {
            throw new ToolException(FailureCategory.EXECUTION_ERROR, "target_not_allowed", e.getMessage());
        } catch (UnknownHostException e) {
            return unreachable(uri);
        }
        ObjectNode out = json.createObjectNode();
        out.put("url", uri.toString());
        long t0 = System.nanoTime();
        long deadline = t0 + timeout.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), (int) Math.max(1, timeout.toMillis()));
            socket.setSoTimeout(remainingMillis(deadline));
            Socket channel = socket;
            SSLSession session = null;
            if (https) {
                SSLSocket tls =
                        (SSLSocket) (verify ? verifying : trustingAll).createSocket(socket, hostOnly(uri), port, true);
                SSLParameters params = tls.getSSLParameters();
                if (verify) {
                    params.setEndpointIdentificationAlgorithm("HTTPS");
                }
                if (!hostOnly(uri).contains(":") && !hostOnly(uri).matches("[0-9.]+")) {
                    params.setServerNames(List.of(new SNIHostName(hostOnly(uri))));
                }
                tls.setSSLParameters(params);
                tls.startHandshake();
                session = tls.getSession();
                channel = tls;
            }
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            String target = path + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
            String hostHeader = uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
            OutputStream o = channel.getOutputStream();
            o.write((method + " " + target + " HTTP/1.1\r\nHost: " + hostHeader
                            + "\r\nUser-Agent: cadre-http-probe\r\nAccept: */*\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            o.flush();
            int status = statusCode(channel.getInputStream());
            long latency = (System.nanoTime() - t0) / 1_000_000;
            int expect = args.path("expectStatus").asInt(0);
            if (status < 0) {
                out.put("ok", false);
                out.put("error", "not_http: the server's answer is not an HTTP status line");
                return out.toString();
            }
            out.put("status", status);
            out.put("latencyMillis", latency);
            out.put("ok", expect == 0 ? status < 400 : status == expect);
            if (session != null) {
                tls(out.putObject("tls"), session);
            }
        } catch (SSLException e) {
            out.put("ok", false);
            out.put("error", "tls_failed: " + e.getMessage());
            out.put("hint", "TLS failed; verifyTls=false shows the certificate anyway");
        } catch (IOException e) {
            // Refused, reset, filtered (timed out) and unroutable all read the same, with no timing:
            // otherwise the probe would tell a model which ports of an allowed host are open.
            return unreachable(uri);
        }
        return out.toString();
    }

    private String unreachable(URI uri) {
        ObjectNode out = json.createObjectNode();
        out.put("url", uri.toString());
        out.put("ok", false);
        out.put("error", "unreachable: no HTTP answer from the target within the timeout");
        return out.toString();
    }

    private static String hostOnly(URI uri) {
        String h = uri.getHost();
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    private static int remainingMillis(long deadlineNanos) throws SocketTimeoutException {
        long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("deadline");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** The status code of the first line ({@code HTTP/1.1 200 OK}), or -1 when it is not HTTP. */
    private static int statusCode(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n' && line.length() < 1024) {
            line.append((char) c);
        }
        String[] parts = line.toString().strip().split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/") || !parts[1].matches("\\d{3}")) {
            if (c < 0 && line.isEmpty()) {
                throw new java.io.EOFException();
            }
            return -1;
        }
        return Integer.parseInt(parts[1]);
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
