package dev.cadre.agent.model;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An agent's models in order of preference ({@code model: [openai:gpt-4o, ollama:llama3]}): the next
 * is asked when the one before is <em>unavailable</em> — its circuit is open, it refuses connections,
 * it still answers 5xx or 429 after the port's retries, or it does not answer in time — never when it
 * rejected the request itself (a 400 would be rejected by the next one too). The model that answered
 * instead is recorded on the current ({@code chat}) span as {@code cadre.model.fallback} and in the
 * response, which the loop reports as a {@code status} event of the run.
 */
public final class FallbackModelPort implements ModelPort {

    /** The {@code chat} span attribute naming the model that answered instead of the configured one. */
    public static final AttributeKey<String> FALLBACK = AttributeKey.stringKey("cadre.model.fallback");

    /** The {@link ModelException#code()}s that mean "this provider is unavailable, try the next". */
    public static final Set<String> UNAVAILABLE = Set.of(
            "provider_circuit_open",
            "provider_unreachable",
            "provider_unavailable",
            "provider_rate_limited",
            "provider_timeout");

    /** One model of the chain. */
    public record Choice(ModelRef ref, ModelPort port) {}

    private final List<Choice> chain;

    public FallbackModelPort(List<Choice> chain) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a fallback chain needs at least one model");
        }
        this.chain = List.copyOf(chain);
    }

    @Override
    public ModelResponse call(ModelRequest request) throws InterruptedException {
        return stream(request, null);
    }

    @Override
    public ModelResponse stream(ModelRequest request, @Nullable Consumer<String> textDeltas)
            throws InterruptedException {
        List<String> skipped = new ArrayList<>();
        for (int i = 0; ; i++) {
            Choice c = chain.get(i);
            ModelRequest r = i == 0 ? request : request.withModel(c.ref());
            try {
                ModelResponse response = textDeltas == null ? c.port().call(r) : c.port().stream(r, textDeltas);
                if (skipped.isEmpty()) {
                    return response;
                }
                String note = String.join("; ", skipped) + "; answered by " + c.ref();
                Span.current().setAttribute(FALLBACK, c.ref().toString());
                return response.withFallback(c.ref(), note);
            } catch (ModelException e) {
                if (i == chain.size() - 1 || !UNAVAILABLE.contains(e.code())) {
                    throw e;
                }
                skipped.add(c.ref() + " unavailable (" + e.code() + ")");
            }
        }
    }
}
