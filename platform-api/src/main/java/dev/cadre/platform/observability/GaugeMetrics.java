package dev.cadre.platform.observability;

import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.runs.RunQueue;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.stereotype.Component;

/** Gauges read at scrape time: approvals waiting for a human, runs waiting for a slot. */
@Component
class GaugeMetrics implements MeterBinder {

    private final ApprovalService approvals;
    private final RunQueue queue;

    GaugeMetrics(ApprovalService approvals, RunQueue queue) {
        this.approvals = approvals;
        this.queue = queue;
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
    }
}
