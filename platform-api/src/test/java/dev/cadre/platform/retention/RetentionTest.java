package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Retention on the embedded default (H2, batched deletes): removes exactly what is past its
 * retention and nothing it must keep — runs that have not ended, runs with a pending approval, runs
 * an open incident lists, current memory versions — with two instances running it at once; and
 * reports what it did in metrics and {@code GET /api/v1/stats/storage}.
 */
@PlatformTest
class RetentionTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    MeterRegistry registry;

    @LocalServerPort
    int port;

    @Test
    void removesWhatIsPastRetention_andKeepsWhatMustStay_withTwoInstancesAtOnce() throws Exception {
        RetentionScenario scenario = new RetentionScenario(context);
        scenario.seed();

        var passes = scenario.runTwoInstancesAtOnce();

        scenario.assertRemovedExactlyWhatItShould(passes);
        // H2 has no partitions: the events and spans went by batched deletes.
        assertThat(context.getBean(RetentionService.class).partitions().counts())
                .containsValues(0, 0);
    }

    @Test
    void metricsExistAtZero_andTheStorageViewDescribesEveryKind() {
        for (RetentionKind kind : RetentionKind.values()) {
            assertThat(registry.find("cadre.retention.rows.removed")
                            .tag("kind", kind.wire())
                            .counter())
                    .as(kind.wire())
                    .isNotNull();
            assertThat(registry.find("cadre.retention.bytes.removed")
                            .tag("kind", kind.wire())
                            .counter())
                    .isNotNull();
        }
        assertThat(registry.find("cadre.storage.partitions").gauges()).hasSize(2);
        assertThat(registry.find("cadre.storage.oldest.age").gauges()).hasSize(4);

        JsonNode view =
                new Api(port).get("/api/v1/stats/storage", Api.ADMIN_KEY).json();
        assertThat(view.path("interval").asString()).isEqualTo("PT1H");
        assertThat(view.path("kinds").findValuesAsString("kind"))
                .containsExactly("runs", "events", "spans", "audit", "memory_history");
        assertThat(view.path("kinds").get(0).path("keep").asString()).isEqualTo("P90D");
        assertThat(view.path("kinds").get(4).path("keep").asString()).isEqualTo("last 20 versions + P7D");
    }
}
