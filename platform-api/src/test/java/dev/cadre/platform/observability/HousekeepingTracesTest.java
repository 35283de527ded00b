package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.support.PlatformTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.support.DefaultScheduledTaskObservationConvention;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;

/**
 * Scheduled housekeeping (approval sweeps, run heartbeats and sweeps) starts no trace — an idle
 * instance sent ~1.4 root traces a second to the collector — yet keeps its timer, which the
 * heartbeat alert reads.
 */
@PlatformTest
class HousekeepingTracesTest {

    @Autowired
    ObservationRegistry observations;

    @Autowired
    MeterRegistry meters;

    @Autowired
    ApprovalService approvals;

    @Test
    void aScheduledTask_isObservedButNotTraced() throws Exception {
        // The observation exactly as Spring's scheduler creates it for ApprovalService.sweep.
        var context = new ScheduledTaskObservationContext(approvals, ApprovalService.class.getMethod("sweep"));
        Observation sweep = Observation.createNotStarted(
                null, new DefaultScheduledTaskObservationConvention(), () -> context, observations);
        AtomicReference<io.opentelemetry.api.trace.Span> span = new AtomicReference<>();
        sweep.observe(() -> span.set(io.opentelemetry.api.trace.Span.current()));
        assertThat(context.getContextualName()).isEqualTo("housekeeping task approvalService.sweep");
        SpanData exported = ((ReadableSpan) span.get()).toSpanData();
        assertThat(exported.getName()).isEqualTo("housekeeping task approvalService.sweep");
        assertThat(ObservabilityConfiguration.HousekeepingFilter.housekeepingRoot(exported))
                .as("what an exporter would be handed is filtered out")
                .isTrue();
        assertThat(meters.find("tasks.scheduled.execution")
                        .tag("code.function", "sweep")
                        .timer())
                .as("the scheduled task's timer")
                .isNotNull();

        // Anything else that starts a trace is still exported.
        AtomicReference<io.opentelemetry.api.trace.Span> control = new AtomicReference<>();
        Observation.createNotStarted("control", observations)
                .observe(() -> control.set(io.opentelemetry.api.trace.Span.current()));
        assertThat(ObservabilityConfiguration.HousekeepingFilter.housekeepingRoot(
                        ((ReadableSpan) control.get()).toSpanData()))
                .isFalse();
    }
}
