package dev.cadre.platform.models;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code cadre.models.*}: the model providers agents may name in {@code model: provider:model}.
 * Built in: {@code openai} (any OpenAI-compatible endpoint by base URL), {@code ollama},
 * {@code anthropic} — each configured only when its URL or key is set; more under
 * {@code providers.<name>} with a {@code type}. See docs/models.md.
 */
@ConfigurationProperties("cadre.models")
public record ModelsProperties(
        @Nullable Provider openai,
        @Nullable Provider ollama,
        @Nullable Provider anthropic,
        @Nullable Map<String, Provider> providers,
        @Nullable Retry retry,
        @Nullable Duration timeout,
        @Nullable Integer maxOutputTokens) {

    public ModelsProperties {
        providers = providers == null ? Map.of() : Map.copyOf(providers);
        retry = retry == null ? new Retry(null, null, null) : retry;
        timeout = timeout == null ? Duration.ofSeconds(120) : timeout;
        maxOutputTokens = maxOutputTokens == null || maxOutputTokens <= 0 ? 4096 : maxOutputTokens;
    }

    /** One provider: its API type ({@code openai}, {@code ollama}, {@code anthropic}), URL and key. */
    public record Provider(
            @Nullable String type,
            @Nullable String baseUrl,
            @Nullable String apiKey,
            @Nullable Duration timeout) {

        String typeOr(String fallback) {
            return type == null || type.isBlank() ? fallback : type.trim().toLowerCase(Locale.ROOT);
        }

        boolean hasUrl() {
            return baseUrl != null && !baseUrl.isBlank();
        }

        boolean hasKey() {
            return apiKey != null && !apiKey.isBlank();
        }
    }

    /** Retries of 429, 5xx, timeouts and refused connections: attempts in all, back-off doubling to a cap. */
    public record Retry(
            @Nullable Integer maxAttempts,
            @Nullable Duration initialBackoff,
            @Nullable Duration maxBackoff) {
        public Retry {
            maxAttempts = maxAttempts == null || maxAttempts < 1 ? 3 : maxAttempts;
            initialBackoff = initialBackoff == null ? Duration.ofMillis(500) : initialBackoff;
            maxBackoff = maxBackoff == null ? Duration.ofSeconds(8) : maxBackoff;
        }
    }
}
