package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

@PlatformTest
class ProblemDetailsTest {

    @LocalServerPort
    int port;

    Api api;

    @BeforeEach
    void setUp() {
        api = new Api(port);
    }

    @Test
    void malformedJson_isA400Problem() {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, "{\"name\": ");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("type").asString()).isEqualTo("urn:cadre:problem:malformed-body");
        assertThat(r.body()).doesNotContain("at tools.jackson").doesNotContain("Exception");
    }

    @Test
    void wrongJsonType_namesTheField() {
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, "{\"name\": [1,2], \"role\": \"viewer\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("name");
    }

    @Test
    void oversizedBody_is413_evenWhenChunked() {
        String big = "{\"name\":\"" + "x".repeat(70_000) + "\",\"role\":\"viewer\"}";
        var r = api.post("/api/v1/keys", Api.ADMIN_KEY, big);
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.json().get("type").asString()).isEqualTo("urn:cadre:problem:body-too-large");
    }

    @Test
    void unknownPath_isA404Problem() {
        var r = api.get("/api/v1/nothing-here", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void unknownId_isA404Problem_namingTheResource() {
        var r = api.send("DELETE", "/api/v1/keys/does-not-exist", Api.ADMIN_KEY, null, Map.of());
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().get("resource").asString()).isEqualTo("API key");
    }

    @Test
    void badQueryParameter_isA400NamingIt() {
        var r = api.get("/api/v1/audit?limit=abc", Api.ADMIN_KEY);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("parameter").asString()).isEqualTo("limit");
        var range = api.get("/api/v1/audit?limit=100000", Api.ADMIN_KEY);
        assertThat(range.status()).isEqualTo(400);
        assertThat(range.json().get("detail").asString()).contains("limit");
    }

    @Test
    void wrongMethod_isA405Problem() {
        var r = api.send("PATCH", "/api/v1/audit", Api.ADMIN_KEY, "{}", Map.of());
        assertThat(r.status()).isIn(403, 405);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void problemExtensions_cannotReplaceTheStandardMembers() {
        var problem = new ApiProblem(org.springframework.http.HttpStatus.CONFLICT, "conflict", "Conflict", "x");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> problem.with("status", "approved"))
                .withMessageContaining("status");
    }

    @Test
    void queryThatIsNotPercentEncodedUtf8_isA400NamingIt() {
        // %FF is well-formed percent-encoding of a byte that is not UTF-8.
        var r = api.get("/api/v1/runs?q=%FF&limit=5", Api.ADMIN_KEY);
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.header("Content-Type")).startsWith("application/problem+json");
        assertThat(r.json().get("detail").asString())
                .contains("percent-encoded")
                .contains("'q'");
        assertThat(r.json().get("parameter").asString()).isEqualTo("q");
    }

    @Test
    void anAcceptHeaderThatDoesNotParse_stillGetsAProblemBody() {
        var missing = api.send("GET", "/api/v1/runs/nope", Api.ADMIN_KEY, null, Map.of("Accept", "garbage/"));
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.header("Content-Type")).startsWith("application/problem+json");
        assertThat(missing.json().get("resource").asString()).isEqualTo("run");

        var agents = api.send("GET", "/api/v1/agents", Api.ADMIN_KEY, null, Map.of("Accept", "garbage/"));
        assertThat(agents.status()).isEqualTo(406);
        assertThat(agents.header("Content-Type")).startsWith("application/problem+json");
        assertThat(agents.json().get("detail").asString()).contains("Accept").contains("garbage/");

        var html = api.send("GET", "/api/v1/runs/nope", Api.ADMIN_KEY, null, Map.of("Accept", "text/html"));
        assertThat(html.status()).isEqualTo(404);
        assertThat(html.header("Content-Type")).startsWith("application/problem+json");
    }
}
