package dev.cadre.platform.observability;

import dev.cadre.agent.telemetry.TelemetryOptions;
import dev.cadre.platform.runs.RunStore;
import dev.cadre.platform.web.SecretRedactor;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/** Traces: the platform's own trace store beside OTLP, and what agent spans may capture. */
@Configuration(proxyBeanMethods = false)
class ObservabilityConfiguration {

    @Bean
    TraceStore traceStore(JdbcClient jdbc, JsonMapper json) {
        return new TraceStore(jdbc, json);
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

    /** Tool arguments and results enter spans only when asked for, and then redacted. */
    @Bean
    TelemetryOptions agentTelemetryOptions(
            @Value("${cadre.tracing.capture-content:false}") boolean captureContent, SecretRedactor redactor) {
        return new TelemetryOptions(captureContent, (tool, text) -> redactor.redactText(text));
    }
}
