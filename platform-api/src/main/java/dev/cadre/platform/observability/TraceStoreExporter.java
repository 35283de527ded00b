package dev.cadre.platform.observability;

import dev.cadre.platform.runs.RunStore;
import dev.cadre.platform.web.SecretRedactor;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps the spans of runs in the platform's {@link TraceStore}, beside whatever OTLP export is
 * configured, so every run's call chain can be shown with no tracing backend at all. Only spans
 * carrying {@code cadre.run.id} are kept; string attributes pass the secret redactor once more on
 * the way. Not a bean: a {@code SpanExporter} bean would also be picked up by Boot's own processor.
 */
final class TraceStoreExporter implements SpanExporter {

    static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("cadre.run.id");
    static final AttributeKey<Long> DEPTH = AttributeKey.longKey("cadre.depth");
    private static final Logger log = LoggerFactory.getLogger(TraceStoreExporter.class);

    private final TraceStore store;
    private final RunStore runs;
    private final SecretRedactor redactor;

    TraceStoreExporter(TraceStore store, RunStore runs, SecretRedactor redactor) {
        this.store = store;
        this.runs = runs;
        this.redactor = redactor;
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        List<SpanData> ofRuns = new ArrayList<>();
        for (SpanData s : spans) {
            if (s.getAttributes().get(RUN_ID) != null) {
                ofRuns.add(s);
            }
        }
        if (ofRuns.isEmpty()) {
            return CompletableResultCode.ofSuccess();
        }
        try {
            for (SpanData s : ofRuns) {
                String runId = s.getAttributes().get(RUN_ID);
                String parent = s.getParentSpanContext().isValid() ? s.getParentSpanId() : null;
                ObjectNode attrs = JsonNodeFactory.instance.objectNode();
                s.getAttributes().forEach((k, v) -> {
                    switch (v) {
                        case String str -> attrs.put(k.getKey(), redactor.redactText(str));
                        case Long l -> attrs.put(k.getKey(), l);
                        case Double d -> attrs.put(k.getKey(), d);
                        case Boolean b -> attrs.put(k.getKey(), b);
                        case List<?> list -> {
                            var array = attrs.putArray(k.getKey());
                            list.forEach(item -> array.add(redactor.redactText(String.valueOf(item))));
                        }
                        default -> attrs.put(k.getKey(), redactor.redactText(String.valueOf(v)));
                    }
                });
                String status = switch (s.getStatus().getStatusCode()) {
                    case ERROR -> "error";
                    case OK -> "ok";
                    case UNSET -> "unset";
                };
                String message = s.getStatus().getDescription();
                store.insert(
                        new TraceStore.StoredSpan(
                                s.getTraceId(),
                                s.getSpanId(),
                                parent,
                                truncate(s.getName(), 200),
                                s.getStartEpochNanos(),
                                s.getEndEpochNanos(),
                                status,
                                message == null || message.isEmpty()
                                        ? null
                                        : truncate(redactor.redactText(message), 400),
                                attrs),
                        runId);
                if (parent == null || isRootAgent(s)) {
                    runs.setTraceIdIfAbsent(runId, s.getTraceId());
                }
            }
            return CompletableResultCode.ofSuccess();
        } catch (RuntimeException e) {
            // A trace store that cannot write must not break runs; the spans still went to OTLP.
            log.warn("Could not store {} spans: {}", ofRuns.size(), e.getMessage());
            return CompletableResultCode.ofFailure();
        }
    }

    private static boolean isRootAgent(SpanData s) {
        Long depth = s.getAttributes().get(DEPTH);
        return s.getName().startsWith("invoke_agent") && depth != null && depth == 0;
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
