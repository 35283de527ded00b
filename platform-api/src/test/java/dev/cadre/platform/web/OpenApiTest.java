package dev.cadre.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

@PlatformTest
class OpenApiTest {

    @LocalServerPort
    int port;

    @Test
    void openApiDocument_describesThePublicApi_andSwaggerUiIsServed() {
        Api api = new Api(port);
        var doc = api.get("/v3/api-docs", Api.ADMIN_KEY);
        assertThat(doc.status()).isEqualTo(200);
        var paths = doc.json().get("paths");
        assertThat(paths.has("/api/v1/runs")).isTrue();
        assertThat(paths.has("/api/v1/runs/{id}/events")).isTrue();
        assertThat(paths.has("/api/v1/approvals/{id}/approve")).isTrue();
        assertThat(paths.has("/api/v1/memory/{namespace}/{key}")).isTrue();
        assertThat(api.get("/swagger-ui/index.html", Api.ADMIN_KEY).status()).isEqualTo(200);
    }
}
