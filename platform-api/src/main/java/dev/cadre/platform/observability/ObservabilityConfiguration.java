package dev.cadre.platform.observability;

import dev.cadre.agent.telemetry.TelemetryOptions;
import dev.cadre.platform.runs.RunStore;
import dev.cadre.platform.web.SecretRedactor;
import io.micrometer.observation.GlobalObservationConvention;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.prometheus.metrics.tracer.common.SpanContext;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.support.DefaultScheduledTaskObservationConvention;
import org.springframework.scheduling.support.ScheduledTaskObservationContext;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Traces: the platform's own trace store beside OTLP, what agent spans may capture, no root traces
 * for scheduled housekeeping, and no Prometheus exemplars unless asked for.
 */
@Configuration(proxyBeanMethods = false)
class ObservabilityConfiguration {

    /** How the contextual name of a scheduled task's observation (and so its span) begins. */
    static final String HOUSEKEEPING = "housekeeping ";

    @Bean
    TraceStore traceStore(JdbcClient jdbc, JsonMapper json, PlatformTransactionManager transactionManager) {
        return new TraceStore(jdbc, json, transactionManager);
    }

    /**
     * Builds the model-call rollup from the spans stored before V8, once, right after Flyway
     * migrated (before any span is stored), so no span is counted twice.
     */
    @Bean
    org.flywaydb.core.api.callback.Callback modelRollupBackfill(JsonMapper json) {
        return new RunStore.AfterMigration(
                "model-rollup-backfill", (jdbc, db) -> TraceStore.backfillModelRollup(jdbc, json));
    }

    /**
     * Spans of runs go to the database in small batches: soon enough for a console following a
     * run live, without a database write on the agent's thread for every span.
     */
    @Bean
    SpanProcessor traceStoreSpanProcessor(
            TraceStore store,
            RunStore runs,
            SecretRedactor redactor,
            @Value("${cadre.tracing.store-delay:PT0.2S}") Duration delay) {
        return BatchSpanProcessor.builder(new TraceStoreExporter(store, runs, redactor))
                .setScheduleDelay(delay)
                .setMaxExportBatchSize(512)
                .build();
    }

    /**
     * Tool arguments and results enter spans unless turned off, always redacted and never more than
     * the model read (a capped output is kept whole only behind its handle): operators debugging a
     * call chain need them.
     */
    @Bean
    TelemetryOptions agentTelemetryOptions(
            @Value("${cadre.tracing.capture-content:true}") boolean captureContent, SecretRedactor redactor) {
        return new TelemetryOptions(captureContent, (tool, text) -> redactor.redactText(text));
    }

    /**
     * Scheduled tasks keep their observation (the {@code tasks_scheduled_execution_seconds} timer,
     * which the heartbeat alert reads) under a name that marks them as housekeeping.
     */
    @Bean
    HousekeepingConvention housekeepingObservationConvention() {
        return new HousekeepingConvention();
    }

    /**
     * Wraps every span exporter (OTLP, when configured) so a housekeeping task's root span is not
     * sent: an idle instance otherwise exported a root trace per sweep and heartbeat (~1.4/s). A
     * sampler cannot do it: Micrometer starts a span before it names it.
     */
    @Bean
    static BeanPostProcessor housekeepingSpanFilter() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                return bean instanceof SpanExporter exporter && !(bean instanceof HousekeepingFilter)
                        ? new HousekeepingFilter(exporter)
                        : bean;
            }
        };
    }

    /**
     * Prometheus exemplars are off unless {@code cadre.metrics.exemplars=true}: the registry puts
     * them on summary {@code _count} lines too, and Prometheus 2.42 (Debian 12) rejects such a
     * scrape whole. This span context never names a span, so no exemplar is attached.
     */
    @Bean
    @ConditionalOnProperty(name = "cadre.metrics.exemplars", havingValue = "false", matchIfMissing = true)
    SpanContext noPrometheusExemplars() {
        return new SpanContext() {
            @Override
            public @Nullable String getCurrentTraceId() {
                return null;
            }

            @Override
            public @Nullable String getCurrentSpanId() {
                return null;
            }

            @Override
            public boolean isCurrentSpanSampled() {
                return false;
            }

            @Override
            public void markCurrentSpanAsExemplar() {}
        };
    }

    /** Spring's convention for scheduled tasks, with {@link #HOUSEKEEPING} before the contextual name. */
    static final class HousekeepingConvention extends DefaultScheduledTaskObservationConvention
            implements GlobalObservationConvention<ScheduledTaskObservationContext> {

        @Override
        public String getContextualName(ScheduledTaskObservationContext context) {
            return HOUSEKEEPING + super.getContextualName(context);
        }
    }

    /** Passes every span on except the root spans of housekeeping tasks. */
    static final class HousekeepingFilter implements SpanExporter {

        private final SpanExporter delegate;

        HousekeepingFilter(SpanExporter delegate) {
            this.delegate = delegate;
        }

        static boolean housekeepingRoot(SpanData span) {
            return span.getName().startsWith(HOUSEKEEPING)
                    && !span.getParentSpanContext().isValid();
        }

        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            List<SpanData> kept =
                    spans.stream().filter(s -> !housekeepingRoot(s)).toList();
            return kept.isEmpty() ? CompletableResultCode.ofSuccess() : delegate.export(kept);
        }

        @Override
        public CompletableResultCode flush() {
            return delegate.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return delegate.shutdown();
        }
    }
}
