package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.OpenApiWalk;
import dev.cadre.platform.support.PlatformTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * No input is silently ignored: for every operation of {@code /v3/api-docs} that takes a request
 * body, a body that is valid apart from one field the request type does not have is a 400 that names
 * that field. Bodies that are free JSON by design (a memory value, a replay expectation) or that
 * follow another protocol's rules (A2A JSON-RPC, Alertmanager's webhook, where senders add fields
 * legitimately) are listed here, each with its reason, so a new endpoint cannot slip into that list
 * unnoticed.
 */
@PlatformTest
class UnknownRequestFieldsTest {

    private static final String UNKNOWN = "surpriseField";

    /** Operations whose body takes any JSON on purpose, and why. */
    private static final Map<String, String> FREE_FORM = Map.of(
            "PUT /api/v1/memory/{namespace}/{key}", "the body is the stored value itself, any JSON",
            "POST /api/v1/runs/{id}/case",
                    "the body is the case's expectations, checked by the case format (which names unknown keys)",
            "POST /a2a", "JSON-RPC under the A2A protocol's rules: clients send extension fields",
            "POST /api/v1/integrations/alertmanager", "Alertmanager's webhook format: new versions add fields");

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    void everyRequestBodyOfTheDocument_refusesAnUnknownField_namingIt() {
        JsonNode doc = api.get("/v3/api-docs", Api.ADMIN_KEY).json();
        List<String> failures = new ArrayList<>();
        Set<String> checked = new TreeSet<>();
        Map<String, String> freeForm = new TreeMap<>();
        for (OpenApiWalk.Operation operation : OpenApiWalk.operations(doc)) {
            JsonNode schema = operation.bodySchema(doc);
            if (schema == null) {
                continue;
            }
            String name = operation.name();
            if (!schema.has("properties")) {
                freeForm.put(name, FREE_FORM.getOrDefault(name, "(no reason given)"));
                continue;
            }
            if (FREE_FORM.containsKey(name)) {
                freeForm.put(name, FREE_FORM.get(name));
                continue;
            }
            ObjectNode body = (ObjectNode) OpenApiWalk.sample(schema, doc);
            body.put(UNKNOWN, true);
            String target = operation.path().replaceAll("\\{[^}]+}", "unknown-field-test")
                    + OpenApiWalk.requiredQuery(operation.op());
            Api.Response r = api.send(
                    operation.method(),
                    target,
                    Api.ADMIN_KEY,
                    body.toString(),
                    Map.of("Content-Type", "application/json"));
            checked.add(name);
            String why = refusal(r, UNKNOWN);
            if (why != null) {
                failures.add(name + " with " + body + ": " + why);
            }
        }
        assertThat(failures).as("request bodies that accepted an unknown field").isEmpty();
        assertThat(checked)
                .as("operations checked")
                .contains("POST /api/v1/runs", "POST /api/v1/approvals/{id}/approve", "POST /api/v1/keys");
        assertThat(freeForm).as("bodies that take any JSON, with the reason").isEqualTo(new TreeMap<>(FREE_FORM));
    }

    @Test
    void approvingWithTheEditsOldName_isRefused_notRunWithTheOriginalArguments() {
        // The edits are 'editedArguments', as the approval's response calls them; 'arguments' was their
        // request name once, when the response's name was dropped and the original arguments ran.
        Api.Response r = api.post(
                "/api/v1/approvals/some-approval/approve",
                Api.ADMIN_KEY,
                "{\"arguments\":{\"namespace\":\"shop\"},\"comment\":\"rollback\"}");
        assertThat(refusal(r, "arguments")).isNull();
        assertThat(r.json().get("detail").asString())
                .isEqualTo("unknown field 'arguments'; the fields here are argumentsHash, comment, editedArguments,"
                        + " editedArgumentsHash");
    }

    @Test
    void anUnknownFieldInANestedObject_isNamedWithItsPath() {
        Api.Response r = api.post(
                "/api/v1/runs",
                Api.ADMIN_KEY,
                "{\"agent\":\"echoer\",\"input\":\"x\",\"budget\":{\"maxCost\":1,\"maxDollars\":1}}");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("budget.maxDollars");
        assertThat(r.json().get("type").asString()).isEqualTo("urn:cadre:problem:unknown-field");
    }

    /** Why the answer is not a 400 naming the field, or null when it is. */
    private static @Nullable String refusal(Api.Response r, String field) {
        if (r.status() != 400) {
            return "answered " + r.status() + ": " + r.body();
        }
        JsonNode problem = r.json();
        if (!field.equals(problem.path("field").asString(""))) {
            return "400 without naming '" + field + "': " + r.body();
        }
        if (!problem.path("detail").asString("").contains("'" + field + "'")) {
            return "the detail does not name '" + field + "': " + r.body();
        }
        return null;
    }
}
