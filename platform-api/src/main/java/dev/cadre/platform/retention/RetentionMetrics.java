package dev.cadre.platform.retention;

import dev.cadre.platform.storage.Removed;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/**
 * Retention's metrics: {@code cadre_retention_rows_removed_total{kind,reason}} and {@code
 * cadre_retention_bytes_removed_total{kind,reason}} (bytes of the removed rows' text, or whole
 * partitions' sizes; reason {@code age} for the age limits, {@code budget} for the storage budget),
 * {@code cadre_storage_partitions{table}}, {@code cadre_storage_oldest_age_seconds{kind}}, and
 * {@code cadre_storage_budget_bytes} / {@code cadre_storage_used_bytes} (the run history on disk the
 * budget covers). The label sets are closed, so every series exists at zero from the start.
 */
final class RetentionMetrics {

    private final MeterRegistry registry;

    RetentionMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (RetentionKind kind : RetentionKind.values()) {
            for (boolean budget : new boolean[] {false, true}) {
                rows(kind, budget);
                bytes(kind, budget);
            }
        }
    }

    void removed(RetentionKind kind, Removed removed, boolean budget) {
        rows(kind, budget).increment(removed.rows());
        bytes(kind, budget).increment(removed.bytes());
    }

    /** Registers the gauges read at scrape time from the service (the oldest rows, the partitions). */
    void bindGauges(RetentionService service, Clock clock) {
        for (RetentionKind kind :
                new RetentionKind[] {RetentionKind.RUNS, RetentionKind.EVENTS, RetentionKind.SPANS, RetentionKind.AUDIT
                }) {
            Gauge.builder(
                            "cadre.storage.oldest.age",
                            service,
                            s -> s.oldest()
                                    .get(kind)
                                    .map(t -> Math.max(
                                            0,
                                            Duration.between(t, clock.instant()).toMillis() / 1000.0))
                                    .orElse(0.0))
                    .description("Age of the oldest stored row of a kind (0 when none)")
                    .baseUnit("seconds")
                    .tag("kind", kind.wire())
                    .register(registry);
        }
        Gauge.builder("cadre.storage.budget", service, s -> s.budget().bytes())
                .description("The storage budget of the run history (cadre.retention.budget; 0 when none is set)")
                .baseUnit("bytes")
                .register(registry);
        Gauge.builder("cadre.storage.used", service, s -> {
                    java.util.OptionalLong used = s.usedBytes();
                    return used.isPresent() ? used.getAsLong() : Double.NaN;
                })
                .description("Bytes on disk of the run history the budget covers: runs, events, spans, tool journal"
                        + " and approvals (NaN where the database cannot tell, e.g. H2)")
                .baseUnit("bytes")
                .register(registry);
        Partitions partitions = service.partitions();
        for (var table : new dev.cadre.platform.storage.DailyPartitions[] {partitions.events(), partitions.spans()}) {
            Gauge.builder(
                            "cadre.storage.partitions",
                            partitions,
                            p -> p.counts().getOrDefault(table.table(), 0))
                    .description("Partitions of a time-partitioned table (0 when it is not partitioned, e.g. on H2)")
                    .tag("table", table.table())
                    .register(registry);
        }
    }

    private Counter rows(RetentionKind kind, boolean budget) {
        return Counter.builder("cadre.retention.rows.removed")
                .description("Rows (memory versions, links) removed by retention, by the age limits or the storage"
                        + " budget")
                .tag("kind", kind.wire())
                .tag("reason", budget ? "budget" : "age")
                .register(registry);
    }

    private Counter bytes(RetentionKind kind, boolean budget) {
        return Counter.builder("cadre.retention.bytes.removed")
                .description(
                        "Bytes removed by retention, where known (text of removed rows, sizes of dropped partitions)")
                .tag("kind", kind.wire())
                .tag("reason", budget ? "budget" : "age")
                .register(registry);
    }
}
