package dev.cadre.platform.observability;

import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.runs.RunQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Gauges read at scrape time: approvals waiting for a human, runs waiting for a slot, and the ages
 * the shipped alerts need (the oldest pending approval, the oldest run still working). The ages are
 * one index lookup each ({@code (status, created_at)} indexes) and the same on every instance.
 */
@Component
class GaugeMetrics implements MeterBinder {

    private final ApprovalService approvals;
    private final RunQueue queue;
    private final JdbcClient jdbc;
    private final Clock clock;

    GaugeMetrics(ApprovalService approvals, RunQueue queue, JdbcClient jdbc, Clock clock) {
        this.approvals = approvals;
        this.queue = queue;
        this.jdbc = jdbc;
        this.clock = clock;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("cadre.approvals.pending", approvals, ApprovalService::pendingCount)
                .description("Approval requests waiting for a decision")
                .register(registry);
        Gauge.builder("cadre.runs.queued", queue, RunQueue::queued)
                .description("Runs accepted and waiting for an execution slot on this instance")
                .register(registry);
        Gauge.builder("cadre.runs.executing", queue, RunQueue::executing)
                .description("Runs executing on this instance")
                .register(registry);
        Gauge.builder("cadre.approvals.oldest.pending.age", this, g -> g.oldestAge("cadre_approval", "pending"))
                .description("Age of the oldest approval request still pending (0 when none); cluster-wide")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder("cadre.runs.oldest.working.age", this, g -> g.oldestAge("cadre_run", "working"))
                .description("Age of the oldest run in status working (0 when none); cluster-wide")
                .baseUnit("seconds")
                .register(registry);
    }

    /** Seconds since the oldest row of that table in that status was created; 0 when there is none. */
    private double oldestAge(String table, String status) {
        // Table and status are constants of this class, never input: safe to concatenate.
        OffsetDateTime oldest = jdbc.sql("SELECT MIN(created_at) FROM " + table + " WHERE status = ?")
                .param(status)
                .query(OffsetDateTime.class)
                .optional()
                .orElse(null);
        if (oldest == null) {
            return 0;
        }
        return Math.max(0, Duration.between(oldest.toInstant(), clock.instant()).toMillis() / 1000.0);
    }
}
