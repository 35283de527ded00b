package dev.cadre.platform.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

@PlatformTest
class MemoryNamespacesApiTest {

    @LocalServerPort
    int port;

    Api api;
    String ns;

    @BeforeEach
    void setUp() {
        api = new Api(port);
        ns = "ns-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Test
    void namespaces_listEntryCounts_inTheConsolesShape_andViewersMayRead() {
        for (String key : List.of("a", "b")) {
            var put = api.send(
                    "PUT",
                    "/api/v1/memory/" + ns + "/" + key,
                    Api.ADMIN_KEY,
                    "{\"n\":1}",
                    Map.of("If-None-Match", "*"));
            assertThat(put.status()).as(put.body()).isEqualTo(201);
        }
        var deleted =
                api.send("DELETE", "/api/v1/memory/" + ns + "/b", Api.ADMIN_KEY, null, Map.of("If-Match", "\"1\""));
        assertThat(deleted.status()).as(deleted.body()).isEqualTo(204);
        var created =
                api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "memory-ns-viewer", "role", "viewer")));
        String viewer = created.json().get("secret").asString();

        var r = api.get("/api/v1/memory", viewer);

        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json().propertyNames()).containsExactly("namespaces");
        JsonNode mine = r.json()
                .get("namespaces")
                .valueStream()
                .filter(n -> n.get("namespace").asString().equals(ns))
                .findFirst()
                .orElseThrow();
        assertThat(mine.propertyNames())
                .containsExactly("namespace", "entries", "deleted", "versions", "lastUpdatedAt");
        assertThat(mine.get("entries").asLong()).isEqualTo(1);
        assertThat(mine.get("deleted").asLong()).isEqualTo(1);
        assertThat(mine.get("versions").asLong()).isEqualTo(3);
        // The newest write is the delete: the last version in b's history.
        JsonNode history = api.get("/api/v1/memory/" + ns + "/b/history", Api.ADMIN_KEY)
                .json()
                .get("versions");
        assertThat(mine.get("lastUpdatedAt").asString())
                .isEqualTo(history.get(history.size() - 1).get("updatedAt").asString());
        assertThat(api.get("/api/v1/memory", null).status()).isEqualTo(401);
    }
}
