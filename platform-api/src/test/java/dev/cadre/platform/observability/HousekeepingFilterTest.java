package dev.cadre.platform.observability;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class HousekeepingFilterTest {

    private final List<String> exported = new CopyOnWriteArrayList<>();

    private final SpanExporter collector = new SpanExporter() {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            spans.forEach(s -> exported.add(s.getName()));
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    };

    @Test
    void housekeepingRoots_areNotExported_everythingElseIs() {
        try (SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(
                        SimpleSpanProcessor.create(new ObservabilityConfiguration.HousekeepingFilter(collector)))
                .build()) {
            Tracer tracer = provider.get("test");
            tracer.spanBuilder("housekeeping runMaintenance.heartbeat")
                    .startSpan()
                    .end();
            Span agent = tracer.spanBuilder("invoke_agent ops").startSpan();
            tracer.spanBuilder("housekeeping nested")
                    .setParent(Context.current().with(agent))
                    .startSpan()
                    .end();
            agent.end();
        }
        assertThat(exported).containsExactly("housekeeping nested", "invoke_agent ops");
    }
}
