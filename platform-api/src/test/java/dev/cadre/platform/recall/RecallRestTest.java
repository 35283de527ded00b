package dev.cadre.platform.recall;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.incidents.Resolution;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /api/v1/incidents/{id}/similar} on the platform: an incident resolved with a root cause
 * and fix through the incident API is found for a paraphrased alert on another host, with both; bad
 * parameters are 400s naming the parameter; an unknown incident is a 404.
 */
class RecallRestTest extends OpsPlatformTestBase {

    private String open(String alert, String host, String summary) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                "alertmanager:" + alert + "/" + host + "/" + System.nanoTime(),
                                alert + " on " + host + ":9100",
                                "high",
                                "alertmanager",
                                Map.of("alertname", alert, "instance", host + ":9100"),
                                summary),
                        Writer.apiClient("test"),
                        null)
                .incident()
                .id();
    }

    @Test
    void a_resolved_incident_is_found_for_a_paraphrased_alert_on_another_host() {
        String past = open(
                "HostOutOfInodes", "mail-3", "Inode usage above 97% on /, millions of small session files in /tmp");
        incidents.resolve(
                past,
                new Resolution(
                        "session garbage collection was off; small session files used every inode",
                        "deleted stale session files and re-enabled session cleanup"),
                "alice");
        String now = open("FilesystemAlmostFull", "mail-8", "Cannot create files: no inodes left, disk space free");

        JsonNode answer = Await.until(
                "the resolved incident to be remembered",
                () -> api.get("/api/v1/incidents/" + now + "/similar?limit=3", Api.ADMIN_KEY)
                        .json(),
                j -> j.path("items")
                        .valueStream()
                        .anyMatch(i -> i.path("incident").asString().equals(past)));
        JsonNode top = answer.path("items").get(0);
        assertThat(top.path("incident").asString()).isEqualTo(past);
        assertThat(top.path("rootCause").asString())
                .isEqualTo("session garbage collection was off; small session files used every inode");
        assertThat(top.path("fix").asString()).isEqualTo("deleted stale session files and re-enabled session cleanup");
        assertThat(top.path("resolvedBy").asString()).isEqualTo("alice");
        assertThat(top.path("target").asString()).isEqualTo("mail-3");
        assertThat(top.path("similarity").asDouble()).isBetween(0.3, 1.0);
        assertThat(answer.path("items")
                        .valueStream()
                        .map(i -> i.path("incident").asString()))
                .doesNotContain(now);

        JsonNode status = api.get("/api/v1/incident-memory", Api.ADMIN_KEY).json();
        assertThat(status.path("ready").asBoolean()).isTrue();
        assertThat(status.path("remembered").asInt()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void bad_parameters_are_named_and_an_unknown_incident_is_404() {
        String now = open("HostHighCpuLoad", "web-2", "CPU above 95%");
        for (String[] bad : new String[][] {
            {"limit=0", "limit"},
            {"limit=51", "limit"},
            {"mode=fuzzy", "mode"},
            {"within=90days", "within"},
            {"within=-P1D", "within"}
        }) {
            var r = api.get("/api/v1/incidents/" + now + "/similar?" + bad[0], Api.ADMIN_KEY);
            assertThat(r.status()).as(bad[0]).isEqualTo(400);
            assertThat(r.json().path("field").asString()).as(bad[0]).isEqualTo(bad[1]);
        }
        assertThat(api.get("/api/v1/incidents/inc-000000000000/similar", Api.ADMIN_KEY)
                        .status())
                .isEqualTo(404);
        assertThat(api.get(
                                "/api/v1/incidents/" + now + "/similar?mode=lexical&sameKind=true&within=P30D",
                                Api.ADMIN_KEY)
                        .status())
                .isEqualTo(200);
    }
}
