package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The OpenAPI document says what the server does, so a client generated from it works: every
 * operation of {@code /v3/api-docs} is called over real HTTP — with valid inputs (synthesised from
 * its schema, or from a small table for the routes whose valid input needs state: ids, versions,
 * pending approvals), without credentials, with an unknown key, with a viewer's key, and with
 * invalid parameters and bodies — and every status code and Content-Type the server answered must
 * be declared for that operation. Every controller route must be in the document, and the document
 * nothing else, so a new endpoint cannot go undocumented.
 */
@PlatformTest
class OpenApiContractTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String NAMESPACE = "contract-test";
    private static final String WRONG_KEY = "contract-test-unknown-key-0000";

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    RequestMappingHandlerMapping mappings;

    @Autowired
    BuildProperties build;

    @Autowired
    dev.cadre.platform.incidents.IncidentService incidents;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final AtomicInteger serial = new AtomicInteger();

    /** One request of the walk. */
    record Probe(
            String what,
            String method,
            String path,
            Map<String, String> headers,
            @Nullable String body) {}

    /** What the server answered; the body is not read for event streams (they do not end). */
    record Answer(int status, @Nullable String contentType, String body) {}

    /** Ids and keys the valid samples need. */
    /** A one-case evaluation of the echo agent: cheap, and valid. */
    private static final String EVAL_SUITE = "{\"definition\":{\"suite\":\"contract\",\"agent\":\"echoer\","
            + "\"cases\":[{\"name\":\"c\",\"input\":\"contract\",\"expect\":{\"facts\":[\"contract\"]}}]}}";

    /** A one-case replay of the echo agent (a case without calls): cheap, and valid. */
    private static final String REPLAY_SUITE = "{\"name\":\"contract\",\"suite\":[\"version: 1\\nname: contract\\n"
            + "input: {agent: echoer, input: contract}\\n\"]}";

    record Fixture(
            String viewerKey,
            String finishedRun,
            String approvalToApprove,
            String approvalToReject,
            String approvalToAbort,
            String revocableKeyId,
            String incident) {}

    @Test
    void everyStatusAndMediaTypeTheServerAnswers_isDeclaredForItsOperation() {
        JsonNode doc = document();
        Fixture fx = fixture(new Api(port));
        List<String> violations = new ArrayList<>();
        Set<String> withoutSuccess = new TreeSet<>();
        Map<String, Set<Integer>> seen = new TreeMap<>();
        int calls = 0;
        for (var path : doc.get("paths").properties()) {
            for (var entry : path.getValue().properties()) {
                String method = entry.getKey().toUpperCase(java.util.Locale.ROOT);
                JsonNode op = entry.getValue();
                String name = method + " " + path.getKey();
                boolean secured = !(op.has("security") && op.get("security").isEmpty());
                boolean succeeded = false;
                for (Probe probe : probes(method, path.getKey(), op, fx, doc)) {
                    Answer answer = call(probe);
                    calls++;
                    seen.computeIfAbsent(name, k -> new TreeSet<>()).add(answer.status());
                    succeeded |= answer.status() / 100 == 2;
                    String problem = undeclared(doc, op, answer);
                    if (problem != null) {
                        violations.add(name + " (" + probe.what() + "): " + problem);
                    }
                    if (probe.what().equals("no credentials") && secured != (answer.status() == 401)) {
                        violations.add(name + ": documented as " + (secured ? "secured" : "public (security: [])")
                                + " but answered " + answer.status() + " without credentials");
                    }
                }
                if (!succeeded) {
                    withoutSuccess.add(name);
                }
            }
        }
        System.out.println("OpenApiContractTest: " + calls + " calls; statuses per operation " + seen);
        assertThat(violations).as("answers the document does not declare").isEmpty();
        assertThat(withoutSuccess)
                .as("operations whose valid sample never succeeded (extend validSamples)")
                .isEmpty();
    }

    @Test
    void everyControllerRouteIsInTheDocument_andTheDocumentHasNoOtherRoute() {
        Set<String> routes = new TreeSet<>();
        mappings.getHandlerMethods().forEach((info, handler) -> {
            Class<?> type = handler.getBeanType();
            if (!type.getPackageName().startsWith("dev.cadre.")
                    || ErrorController.class.isAssignableFrom(type)
                    || type.isAnnotationPresent(Hidden.class)
                    || handler.hasMethodAnnotation(Hidden.class)) {
                return;
            }
            assertThat(info.getMethodsCondition().getMethods())
                    .as("%s names its HTTP methods", handler)
                    .isNotEmpty();
            for (String pattern : info.getPatternValues()) {
                for (var m : info.getMethodsCondition().getMethods()) {
                    routes.add(m.name() + " " + pattern.replaceAll("\\{([^}:]+):[^}]*}", "{$1}"));
                }
            }
        });
        Set<String> documented = new TreeSet<>();
        for (var path : document().get("paths").properties()) {
            for (String method : path.getValue().propertyNames()) {
                documented.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey());
            }
        }
        assertThat(routes).as("controller routes").isNotEmpty();
        assertThat(documented).as("the documented routes").isEqualTo(routes);
    }

    @Test
    void theDocumentNamesItsApi_security_errorsAndMediaTypes() {
        JsonNode doc = document();
        assertThat(doc.at("/info/title").asString()).isEqualTo("Cadre platform API");
        assertThat(doc.at("/info/version").asString()).isEqualTo(build.getVersion());
        assertThat(doc.at("/components/securitySchemes/bearerApiKey/scheme").asString())
                .isEqualTo("bearer");
        assertThat(doc.at("/components/securitySchemes/headerApiKey/name").asString())
                .isEqualTo("X-API-Key");
        assertThat(doc.at("/components/securitySchemes/consoleSession/in").asString())
                .isEqualTo("cookie");
        assertThat(doc.get("security")).hasSize(3);
        assertThat(doc.get("paths").has("/error")).isFalse();
        assertThat(doc.at("/paths/~1a2a/post/requestBody/content").has("application/json"))
                .isTrue();
        assertThat(doc.at("/paths/~1api~1v1~1runs/post/responses").propertyNames())
                .contains("202", "400", "401", "403", "429", "500")
                .doesNotContain("200");
        assertThat(doc.at("/paths/~1api~1v1~1memory~1{namespace}~1{key}/put/responses")
                        .propertyNames())
                .contains("200", "201", "412", "428");
        assertThat(doc.at("/paths/~1api~1v1~1memory~1{namespace}~1{key}/delete/responses")
                        .propertyNames())
                .contains("204", "412", "428");
        assertThat(doc.at("/paths/~1api~1v1~1runs~1{id}/get/responses/404/content")
                        .has("application/problem+json"))
                .isTrue();
        assertThat(doc.toString()).doesNotContain("\"*/*\"");
        Set<String> operationIds = new TreeSet<>();
        for (var path : doc.get("paths").properties()) {
            for (JsonNode op : path.getValue()) {
                assertThat(operationIds.add(op.get("operationId").asString()))
                        .as("operationId %s is unique", op.get("operationId"))
                        .isTrue();
                assertThat(op.path("summary").asString()).as(path.getKey()).isNotBlank();
            }
        }
    }

    // ---------------------------------------------------------------- the probes

    private List<Probe> probes(String method, String template, JsonNode op, Fixture fx, JsonNode doc) {
        List<Probe> probes = new ArrayList<>();
        String path = fill(template, fx);
        String query = requiredQuery(op);
        List<Probe> valid = validSamples(method, template, path, op, fx, doc);
        probes.addAll(valid);
        Probe base = valid.get(0);
        probes.add(new Probe("no credentials", method, base.path(), withoutAuth(base.headers()), base.body()));
        probes.add(new Probe(
                "unknown key",
                method,
                base.path(),
                with(withoutAuth(base.headers()), "Authorization", "Bearer " + WRONG_KEY),
                base.body()));
        probes.add(new Probe(
                "viewer key",
                method,
                base.path(),
                with(withoutAuth(base.headers()), "Authorization", "Bearer " + fx.viewerKey()),
                base.body()));
        if (template.contains("{")) {
            String unknown = template.replaceAll("\\{[^}]+}", "no-such-" + serial.incrementAndGet());
            probes.add(new Probe("unknown id", method, unknown + query, base.headers(), base.body()));
        }
        for (JsonNode p : op.path("parameters")) {
            if (!p.path("in").asString().equals("query")) {
                continue;
            }
            String type = p.at("/schema/type").asString("");
            String name = p.get("name").asString();
            String sep = base.path().contains("?") ? "&" : "?";
            if (type.equals("integer") || type.equals("number")) {
                probes.add(new Probe(
                        "non-numeric " + name, method, base.path() + sep + name + "=abc", base.headers(), base.body()));
                if (p.at("/schema/maximum").isNumber()) {
                    long over = p.at("/schema/maximum").asLong() + 1;
                    probes.add(new Probe(
                            "too large " + name,
                            method,
                            base.path() + sep + name + "=" + over,
                            base.headers(),
                            base.body()));
                }
                if (p.at("/schema/minimum").isNumber()) {
                    long under = p.at("/schema/minimum").asLong() - 1;
                    probes.add(new Probe(
                            "too small " + name,
                            method,
                            base.path() + sep + name + "=" + under,
                            base.headers(),
                            base.body()));
                }
            } else if (type.equals("boolean")) {
                probes.add(new Probe(
                        "non-boolean " + name,
                        method,
                        base.path() + sep + name + "=maybe",
                        base.headers(),
                        base.body()));
            } else if (type.equals("string")) {
                probes.add(new Probe(
                        "odd " + name, method, base.path() + sep + name + "=%25zz%00", base.headers(), base.body()));
            }
        }
        if (op.has("requestBody")) {
            probes.add(new Probe(
                    "malformed JSON",
                    method,
                    base.path(),
                    with(base.headers(), "Content-Type", "application/json"),
                    "{\"unclosed\":"));
            probes.add(new Probe(
                    "JSON array body",
                    method,
                    base.path(),
                    with(base.headers(), "Content-Type", "application/json"),
                    "[1,2]"));
            probes.add(new Probe(
                    "text body", method, base.path(), with(base.headers(), "Content-Type", "text/plain"), "hello"));
            if (op.at("/requestBody/required").asBoolean(false)) {
                probes.add(new Probe("no body", method, base.path(), withoutContentType(base.headers()), null));
            }
        }
        // Ask for something the operation does not produce.
        probes.add(new Probe(
                "Accept text/csv", method, base.path(), with(base.headers(), "Accept", "text/csv"), base.body()));
        return probes;
    }

    /**
     * The valid calls of an operation: the table for the routes whose success needs state or a
     * sequence (preconditions, approvals, cancellation), otherwise one call synthesised from the
     * document (path variables from the fixture, required parameters and the body from their schemas).
     */
    private List<Probe> validSamples(
            String method, String template, String path, JsonNode op, Fixture fx, JsonNode doc) {
        Map<String, String> admin = Map.of("Authorization", "Bearer " + Api.ADMIN_KEY);
        Map<String, String> json = with(admin, "Content-Type", "application/json");
        String entry = "/api/v1/memory/" + NAMESPACE + "/";
        switch (method + " " + template) {
            case "GET /api/v1/memory/{namespace}/{key}" -> {
                return List.of(
                        new Probe("valid", method, entry + "read", admin, null),
                        new Probe(
                                "valid, not modified",
                                method,
                                entry + "read",
                                with(admin, "If-None-Match", "\"1\""),
                                null));
            }
            case "PUT /api/v1/memory/{namespace}/{key}" -> {
                String fresh = entry + "created-" + serial.incrementAndGet();
                return List.of(
                        new Probe("valid, create", method, fresh, with(json, "If-None-Match", "*"), "{\"v\":1}"),
                        new Probe(
                                "valid, update",
                                method,
                                entry + "update",
                                with(json, "If-Match", "\"1\""),
                                "{\"v\":2}"),
                        new Probe(
                                "stale If-Match",
                                method,
                                entry + "update",
                                with(json, "If-Match", "\"1\""),
                                "{\"v\":3}"),
                        new Probe("no precondition", method, entry + "update", json, "{\"v\":4}"),
                        new Probe("create existing", method, fresh, with(json, "If-None-Match", "*"), "{\"v\":5}"),
                        new Probe(
                                "bad If-Match", method, entry + "update", with(json, "If-Match", "soon"), "{\"v\":6}"));
            }
            case "DELETE /api/v1/memory/{namespace}/{key}" -> {
                return List.of(
                        new Probe("valid", method, entry + "delete", with(admin, "If-Match", "\"1\""), null),
                        new Probe("stale If-Match", method, entry + "delete", with(admin, "If-Match", "\"1\""), null),
                        new Probe("no precondition", method, entry + "delete", admin, null));
            }
            case "POST /api/v1/runs" -> {
                String key = "contract-" + UUID.randomUUID();
                return List.of(
                        new Probe(
                                "valid",
                                method,
                                path,
                                with(json, "Idempotency-Key", key),
                                "{\"agent\":\"echoer\",\"input\":\"contract\"}"),
                        new Probe(
                                "replayed",
                                method,
                                path,
                                with(json, "Idempotency-Key", key),
                                "{\"agent\":\"echoer\",\"input\":\"contract\"}"),
                        new Probe(
                                "reused key",
                                method,
                                path,
                                with(json, "Idempotency-Key", key),
                                "{\"agent\":\"echoer\",\"input\":\"other\"}"),
                        new Probe("unknown agent", method, path, json, "{\"agent\":\"no-such-agent\",\"input\":\"x\"}"),
                        new Probe("missing input", method, path, json, "{\"agent\":\"echoer\"}"));
            }
            case "POST /api/v1/runs/{id}/cancel" -> {
                // Submitted here, not in the fixture: 'slow' thinks for a minute, so it is still working now.
                String cancellable = new Api(port)
                        .submitRun("slow", "contract test")
                        .get("id")
                        .asString();
                return List.of(
                        new Probe("valid", method, "/api/v1/runs/" + cancellable + "/cancel", admin, null),
                        new Probe("finished run", method, "/api/v1/runs/" + fx.finishedRun() + "/cancel", admin, null));
            }
            case "POST /api/v1/approvals/{id}/approve",
                    "POST /api/v1/approvals/{id}/reject",
                    "POST /api/v1/approvals/{id}/abort" -> {
                String id = template.endsWith("approve")
                        ? fx.approvalToApprove()
                        : template.endsWith("reject") ? fx.approvalToReject() : fx.approvalToAbort();
                String p = template.replace("{id}", id);
                // An approval names what it approves: the hash of the arguments as read.
                String seen = new Api(port)
                        .get("/api/v1/approvals/" + id, Api.ADMIN_KEY)
                        .json()
                        .get("argumentsHash")
                        .asString();
                return List.of(
                        new Probe(
                                "valid",
                                method,
                                p,
                                json,
                                "{\"argumentsHash\":\"" + seen + "\",\"comment\":\"contract test\"}"),
                        new Probe("already decided", method, p, json, "{\"comment\":\"again\"}"));
            }
            case "GET /api/v1/runs/{id}/case" -> {
                // 'slow' thinks for a minute: still working when probed, so it has no case yet.
                String working = new Api(port)
                        .submitRun("slow", "contract test, case")
                        .get("id")
                        .asString();
                return List.of(
                        new Probe("valid", method, path, admin, null),
                        new Probe("unfinished run", method, "/api/v1/runs/" + working + "/case", admin, null));
            }
            case "POST /api/v1/evals" -> {
                return List.of(
                        new Probe("valid", method, path, json, EVAL_SUITE),
                        new Probe("valid, shipped suite", method, path, json, "{\"suite\":\"ops-team\",\"repeat\":1}"),
                        new Probe("unknown suite", method, path, json, "{\"suite\":\"no-such-suite\"}"),
                        new Probe("invalid suite", method, path, json, "{\"definition\":{\"suite\":\"x\"}}"));
            }
            case "POST /api/v1/replays" -> {
                return List.of(
                        new Probe("valid", method, path, json, REPLAY_SUITE),
                        new Probe("unknown case", method, path, json, "{\"suite\":[\"no-such-case\"]}"),
                        new Probe("invalid case", method, path, json, "{\"suite\":[\"version: 2\"]}"),
                        new Probe("unknown team", method, path, json, "{\"suite\":[\"x\"],\"team\":\"/nope.yaml\"}"));
            }
            case "GET /api/v1/replays/{id}" -> {
                String id = new Api(port)
                        .post("/api/v1/replays", Api.ADMIN_KEY, REPLAY_SUITE)
                        .json()
                        .path("id")
                        .asString();
                return List.of(new Probe("valid", method, "/api/v1/replays/" + id, admin, null));
            }
            case "GET /api/v1/evals/{id}" -> {
                String id = new Api(port)
                        .post("/api/v1/evals", Api.ADMIN_KEY, EVAL_SUITE)
                        .json()
                        .path("id")
                        .asString();
                return List.of(new Probe("valid", method, "/api/v1/evals/" + id, admin, null));
            }
            case "GET /api/v1/runs/{id}/tool-outputs/{handle}" -> {
                // A run whose tool result was capped (log-reader's big_output): its handle is on the trace.
                Api api = new Api(port);
                String run = api.submitRun("log-reader", "contract").get("id").asString();
                api.awaitRunEnd(run);
                String handle = dev.cadre.platform.support.Await.until(
                        "the capped tool span of " + run,
                        () -> {
                            java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                                            "\"outputHandle\":\"(out_[0-9a-f]+)\"")
                                    .matcher(api.get("/api/v1/runs/" + run + "/trace", Api.ADMIN_KEY)
                                            .body());
                            return m.find() ? m.group(1) : "";
                        },
                        h -> !h.isEmpty());
                String p = "/api/v1/runs/" + run + "/tool-outputs/" + handle;
                return List.of(
                        new Probe("valid", method, p, admin, null),
                        new Probe("valid, a page", method, p + "?offset=10&limit=5&grep=error", admin, null),
                        new Probe("bad limit", method, p + "?limit=0", admin, null));
            }
            case "GET /api/v1/workflows/{name}" -> {
                return List.of(new Probe("valid", method, "/api/v1/workflows/wf-incident", admin, null));
            }
            case "POST /api/v1/session/team" -> {
                // A key acts in its own team (team switching is for people signed in through single
                // sign-on, SingleSignOnBrowserTest); naming it is the valid call.
                return List.of(
                        new Probe("valid", method, path, json, "{\"team\":\"default\"}"),
                        new Probe("another team", method, path, json, "{\"team\":\"storage\"}"));
            }
            case "POST /api/v1/session" -> {
                return List.of(
                        new Probe("valid", method, path, json, "{\"apiKey\":\"" + fx.viewerKey() + "\"}"),
                        new Probe("unknown key in body", method, path, json, "{\"apiKey\":\"" + WRONG_KEY + "\"}"),
                        new Probe(
                                "no CSRF token",
                                method,
                                path,
                                Map.of("Content-Type", "application/json", "Cookie", "JSESSIONID=contract"),
                                "{\"apiKey\":\"" + fx.viewerKey() + "\"}"));
            }
            case "POST /api/v1/keys" -> {
                return List.of(
                        new Probe(
                                "valid",
                                method,
                                path,
                                json,
                                "{\"name\":\"contract-" + serial.incrementAndGet() + "\",\"role\":\"viewer\"}"),
                        new Probe("unknown role", method, path, json, "{\"name\":\"contract-x\",\"role\":\"root\"}"));
            }
            case "POST /api/v1/keys/{id}/rotate" -> {
                String key =
                        createKey(new Api(port), "viewer").get("key").get("id").asString();
                return List.of(new Probe("valid", method, "/api/v1/keys/" + key + "/rotate", admin, null));
            }
            case "GET /api/v1/teams/{name}" -> {
                return List.of(new Probe("valid", method, "/api/v1/teams/default", admin, null));
            }
            case "POST /api/v1/teams" -> {
                return List.of(new Probe(
                        "valid", method, path, json, "{\"name\":\"contract-" + serial.incrementAndGet() + "\"}"));
            }
            case "DELETE /api/v1/keys/{id}" -> {
                return List.of(new Probe("valid", method, "/api/v1/keys/" + fx.revocableKeyId(), admin, null));
            }
            case "POST /api/v1/integrations/alertmanager" -> {
                return List.of(
                        new Probe(
                                "valid",
                                method,
                                path,
                                json,
                                "{\"version\":\"4\",\"status\":\"resolved\",\"alerts\":[{\"status\":\"resolved\",\"labels\":{\"alertname\":\"ContractTest\"}}]}"));
            }
            case "POST /a2a" -> {
                String send =
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendStreamingMessage\",\"params\":{\"message\":{\"messageId\":\"contract-"
                                + UUID.randomUUID()
                                + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"hi\"}],\"metadata\":{\"agent\":\"echoer\"}}}}";
                return List.of(
                        new Probe(
                                "valid",
                                method,
                                path,
                                json,
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"GetTask\",\"params\":{\"id\":\""
                                        + fx.finishedRun() + "\"}}"),
                        new Probe("valid, streaming", method, path, json, send),
                        new Probe(
                                "unknown method",
                                method,
                                path,
                                json,
                                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"Nope\"}"));
            }
            default -> {
                Map<String, String> headers = new LinkedHashMap<>(admin);
                String body = null;
                if (op.has("requestBody")) {
                    headers.put("Content-Type", "application/json");
                    body = sample(op.at("/requestBody/content/application~1json/schema"), doc)
                            .toString();
                }
                return List.of(new Probe("valid", method, path + requiredQuery(op), headers, body));
            }
        }
    }

    /** The template with the fixture's ids: a run, an approval, an agent, a memory entry. */
    private static String fill(String template, Fixture fx) {
        String p = template.replace("{namespace}", NAMESPACE)
                .replace("{key}", "read")
                .replace("{name}", "echoer");
        if (p.startsWith("/api/v1/runs/")) {
            p = p.replace("{id}", fx.finishedRun());
        } else if (p.startsWith("/api/v1/approvals/")) {
            p = p.replace("{id}", fx.approvalToApprove());
        } else if (p.startsWith("/api/v1/keys/")) {
            p = p.replace("{id}", fx.revocableKeyId());
        } else if (p.startsWith("/api/v1/incidents/")) {
            p = p.replace("{id}", fx.incident());
        }
        return p;
    }

    private static String requiredQuery(JsonNode op) {
        StringBuilder q = new StringBuilder();
        for (JsonNode p : op.path("parameters")) {
            if (p.path("in").asString().equals("query") && p.path("required").asBoolean(false)) {
                q.append(q.isEmpty() ? "?" : "&")
                        .append(p.get("name").asString())
                        .append('=')
                        .append(sample(p.get("schema"), null).asString());
            }
        }
        return q.toString();
    }

    /** A value the schema accepts: its example, default or first enum value, else one of its type. */
    private static JsonNode sample(JsonNode schema, @Nullable JsonNode doc) {
        if (schema.has("$ref") && doc != null) {
            String ref = schema.get("$ref").asString();
            return sample(doc.at(ref.substring(1)), doc);
        }
        for (String given : List.of("example", "default")) {
            if (schema.has(given)) {
                return schema.get(given);
            }
        }
        if (schema.has("enum")) {
            return schema.get("enum").get(0);
        }
        String type = schema.path("type").isArray()
                ? schema.get("type").get(0).asString()
                : schema.path("type").asString("object");
        return switch (type) {
            case "string" -> NODES.stringNode("sample");
            case "integer", "number" ->
                NODES.numberNode(Math.max(1, schema.path("minimum").asLong(1)));
            case "boolean" -> NODES.booleanNode(true);
            case "array" -> NODES.arrayNode().add(sample(schema.path("items"), doc));
            default -> {
                ObjectNode o = NODES.objectNode();
                for (var property : schema.path("properties").properties()) {
                    o.set(property.getKey(), sample(property.getValue(), doc));
                }
                yield o;
            }
        };
    }

    // ---------------------------------------------------------------- checking an answer

    /** Why the answer is not in the document, or null when it is. */
    private static @Nullable String undeclared(JsonNode doc, JsonNode op, Answer answer) {
        String code = Integer.toString(answer.status());
        JsonNode response = op.path("responses").get(code);
        if (response == null) {
            response = op.path("responses").get(code.charAt(0) + "XX");
        }
        if (response == null) {
            response = op.path("responses").get("default");
        }
        if (response == null) {
            return "status " + code + " is not declared (declared: "
                    + op.path("responses").propertyNames() + "); body: " + abbreviate(answer.body());
        }
        if (response.has("$ref")) {
            response = doc.at(response.get("$ref").asString().substring(1));
        }
        if (answer.contentType() == null || answer.status() == 204 || answer.status() == 304) {
            return answer.body().isEmpty() ? null : "status " + code + " has a body but no Content-Type";
        }
        MediaType actual = MediaType.parseMediaType(answer.contentType());
        var declared = response.path("content").propertyNames();
        boolean ok = declared.stream().map(MediaType::parseMediaType).anyMatch(d -> d.includes(actual));
        if (!ok) {
            return "status " + code + " answered Content-Type " + answer.contentType() + ", declared " + declared
                    + "; body: " + abbreviate(answer.body());
        }
        if (actual.isCompatibleWith(MediaType.APPLICATION_JSON)
                || actual.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)) {
            try {
                JsonNode body = JSON.readTree(answer.body());
                if (actual.isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                        && body.path("status").asInt() != answer.status()) {
                    return "problem status " + body.path("status") + " differs from HTTP " + code;
                }
            } catch (RuntimeException e) {
                return "status " + code + " body is not JSON: " + abbreviate(answer.body());
            }
        }
        return null;
    }

    private static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "…";
    }

    // ---------------------------------------------------------------- HTTP and fixture

    private JsonNode document() {
        Answer doc = call(
                new Probe("document", "GET", "/v3/api-docs", Map.of("Authorization", "Bearer " + Api.ADMIN_KEY), null));
        assertThat(doc.status()).as(doc.body()).isEqualTo(200);
        return JSON.readTree(doc.body());
    }

    /** One call; an event stream is closed once its status and headers are in. */
    private Answer call(Probe probe) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + probe.path()))
                .timeout(Duration.ofSeconds(60));
        probe.headers().forEach(b::header);
        b.method(
                probe.method(),
                probe.body() == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(probe.body()));
        try {
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            String type = r.headers().firstValue("Content-Type").orElse(null);
            String body;
            try (InputStream in = r.body()) {
                body = type != null && type.startsWith("text/event-stream")
                        ? ""
                        : new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            return new Answer(r.statusCode(), type, body);
        } catch (IOException e) {
            throw new IllegalStateException(probe.method() + " " + probe.path() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Fixture fixture(Api api) {
        String viewer = createKey(api, "viewer").get("secret").asString();
        String revocable = createKey(api, "viewer").at("/key/id").asString();
        String finished = api.submitRun("echoer", "contract fixture").get("id").asString();
        api.awaitRunEnd(finished);
        String toApprove = api.pendingApprovalOf(
                        api.submitRun("fixer", "restart api on web-1").get("id").asString())
                .get("id")
                .asString();
        String toReject = api.pendingApprovalOf(
                        api.submitRun("fixer", "restart api on web-2").get("id").asString())
                .get("id")
                .asString();
        String toAbort = api.pendingApprovalOf(
                        api.submitRun("fixer", "restart api on web-3").get("id").asString())
                .get("id")
                .asString();
        for (String key : List.of("read", "update", "delete")) {
            var put = api.send(
                    "PUT",
                    "/api/v1/memory/" + NAMESPACE + "/" + key,
                    Api.ADMIN_KEY,
                    "{\"v\":0}",
                    Map.of("If-None-Match", "*"));
            assertThat(put.status()).as(put.body()).isEqualTo(201);
        }
        String incident = incidents
                .open(
                        new dev.cadre.platform.incidents.IncidentService.OpenRequest(
                                "contract-" + UUID.randomUUID(),
                                "contract incident",
                                "warning",
                                "contract",
                                Map.of(),
                                null),
                        dev.cadre.memory.Writer.apiClient("contract"),
                        null)
                .incident()
                .id();
        return new Fixture(viewer, finished, toApprove, toReject, toAbort, revocable, incident);
    }

    private JsonNode createKey(Api api, String role) {
        var r = api.post(
                "/api/v1/keys",
                Api.ADMIN_KEY,
                Api.json(Map.of("name", "contract-" + role + "-" + UUID.randomUUID(), "role", role)));
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        return r.json();
    }

    private static Map<String, String> with(Map<String, String> headers, String name, String value) {
        Map<String, String> out = new LinkedHashMap<>(headers);
        out.put(name, value);
        return out;
    }

    private static Map<String, String> withoutAuth(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>(headers);
        out.remove("Authorization");
        return out;
    }

    private static Map<String, String> withoutContentType(Map<String, String> headers) {
        Map<String, String> out = new LinkedHashMap<>(headers);
        out.remove("Content-Type");
        return out;
    }
}
