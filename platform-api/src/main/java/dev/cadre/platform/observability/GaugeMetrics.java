package dev.cadre.platform.observability;

import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.runs.RunQueue;
import dev.cadre.platform.runs.RunStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
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
    private final RunStore runs;
    private final ApprovalStore approvalStore;
    private final Clock clock;

    GaugeMetrics(ApprovalService approvals, RunQueue queue, RunStore runs, ApprovalStore approvalStore, Clock clock) {
        this.approvals = approvals;
        this.queue = queue;
        this.runs = runs;
        this.approvalStore = approvalStore;
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
        Gauge.builder(
                        "cadre.approvals.oldest.pending.age",
                        this,
                        g -> g.ageOf(g.approvalStore.oldestCreatedAt("pending")))
                .description("Age of the oldest approval request still pending (0 when none); cluster-wide")
                .baseUnit("seconds")
                .register(registry);
        // The queue's age beside its depth: how long the oldest accepted run has waited to start.
        Gauge.builder("cadre.runs.oldest.submitted.age", this, g -> g.ageOf(g.runs.oldestCreatedAt("submitted")))
                .description(
                        "Age of the oldest run still waiting to start (status submitted; 0 when none); cluster-wide")
                .baseUnit("seconds")
                .register(registry);
        Gauge.builder("cadre.runs.oldest.working.age", this, g -> g.ageOf(g.runs.oldestCreatedAt("working")))
                .description("Age of the oldest run in status working (0 when none); cluster-wide")
                .baseUnit("seconds")
                .register(registry);
    }

    /** Seconds since {@code oldest}; 0 when there is none. */
    private double ageOf(Optional<Instant> oldest) {
        return oldest.map(o -> Math.max(0, Duration.between(o, clock.instant()).toMillis() / 1000.0))
                .orElse(0.0);
    }
}
