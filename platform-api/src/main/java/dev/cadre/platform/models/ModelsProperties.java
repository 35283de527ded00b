package dev.cadre.platform.models;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.Costs;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;

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
        @Nullable Integer maxOutputTokens,
        @Nullable CircuitBreakerSettings circuitBreaker,
        @Nullable Map<String, Price> prices,
        @Nullable String currency) {

    @ConstructorBinding
    public ModelsProperties {
        providers = providers == null ? Map.of() : Map.copyOf(providers);
        retry = retry == null ? new Retry(null, null, null, null) : retry;
        timeout = timeout == null ? Duration.ofSeconds(120) : timeout;
        maxOutputTokens = maxOutputTokens == null || maxOutputTokens <= 0 ? 4096 : maxOutputTokens;
        circuitBreaker = circuitBreaker == null ? new CircuitBreakerSettings(null, null) : circuitBreaker;
        prices = prices == null ? Map.of() : Map.copyOf(prices);
        currency = currency == null || currency.isBlank() ? "USD" : currency.trim();
    }

    /** Providers, retries, timeout and output cap; no breaker settings, no prices. */
    public ModelsProperties(
            @Nullable Provider openai,
            @Nullable Provider ollama,
            @Nullable Provider anthropic,
            @Nullable Map<String, Provider> providers,
            @Nullable Retry retry,
            @Nullable Duration timeout,
            @Nullable Integer maxOutputTokens) {
        this(openai, ollama, anthropic, providers, retry, timeout, maxOutputTokens, null, null, null);
    }

    /**
     * One provider: its API type ({@code openai}, {@code ollama}, {@code anthropic}), URL and key;
     * whether to stream (default yes); which request field carries the output limit for an
     * OpenAI-compatible endpoint ({@code max_tokens}, the default, or {@code max_completion_tokens},
     * which OpenAI's reasoning models require); and the sampling temperature (provider default when unset).
     */
    public record Provider(
            @Nullable String type,
            @Nullable String baseUrl,
            @Nullable String apiKey,
            @Nullable Duration timeout,
            @Nullable Boolean stream,
            @Nullable String maxTokensField,
            @Nullable Double temperature) {

        @ConstructorBinding
        public Provider {
            if (maxTokensField != null
                    && !maxTokensField.isBlank()
                    && !maxTokensField.equals("max_tokens")
                    && !maxTokensField.equals("max_completion_tokens")) {
                throw new IllegalArgumentException(
                        "max-tokens-field: '" + maxTokensField + "' is not one of max_tokens, max_completion_tokens");
            }
        }

        /** A provider with the default streaming, output-limit field and temperature. */
        public Provider(
                @Nullable String type, @Nullable String baseUrl, @Nullable String apiKey, @Nullable Duration timeout) {
            this(type, baseUrl, apiKey, timeout, null, null, null);
        }

        boolean streams() {
            return stream == null || stream;
        }

        boolean usesMaxCompletionTokens() {
            return "max_completion_tokens".equals(maxTokensField);
        }

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

    /**
     * Retries of 429, 5xx, timeouts and refused connections: attempts in all, jittered back-off doubling
     * to a cap; a {@code Retry-After} the provider sends (seconds or an HTTP date) is waited instead, up
     * to {@code maxRetryAfter} (a longer one fails the call at once). No wait goes past the agent's deadline.
     */
    public record Retry(
            @Nullable Integer maxAttempts,
            @Nullable Duration initialBackoff,
            @Nullable Duration maxBackoff,
            @Nullable Duration maxRetryAfter) {
        @ConstructorBinding
        public Retry {
            maxAttempts = maxAttempts == null || maxAttempts < 1 ? 3 : maxAttempts;
            initialBackoff = initialBackoff == null ? Duration.ofMillis(500) : initialBackoff;
            maxBackoff = maxBackoff == null ? Duration.ofSeconds(8) : maxBackoff;
            maxRetryAfter = maxRetryAfter == null ? Duration.ofSeconds(60) : maxRetryAfter;
        }

        public Retry(@Nullable Integer maxAttempts, @Nullable Duration initialBackoff, @Nullable Duration maxBackoff) {
            this(maxAttempts, initialBackoff, maxBackoff, null);
        }
    }

    /**
     * The circuit breaker of each provider endpoint: consecutive failed attempts that open it (default
     * 5) and how long it stays open before one probe call is let through (default 30 s).
     */
    public record CircuitBreakerSettings(
            @Nullable Integer failureThreshold, @Nullable Duration openDuration) {
        public CircuitBreakerSettings {
            failureThreshold = failureThreshold == null || failureThreshold < 1 ? 5 : failureThreshold;
            openDuration = openDuration == null ? Duration.ofSeconds(30) : openDuration;
        }
    }

    /**
     * A model's price per million tokens, in {@code currency} (default {@code cadre.models.currency}).
     * Keyed by model name ({@code gpt-4o-mini}) or {@code provider:model}; write a key with dots or
     * colons in brackets: {@code cadre.models.prices[gpt-4.1].input-per-million}. Input read from and
     * written to a provider's prompt cache costs {@code cache-read-per-million} and
     * {@code cache-write-per-million} when set, the input price otherwise.
     */
    public record Price(
            double inputPerMillion,
            double outputPerMillion,
            @Nullable String currency,
            @Nullable Double cacheReadPerMillion,
            @Nullable Double cacheWritePerMillion) {
        @ConstructorBinding
        public Price {
            if (inputPerMillion < 0
                    || outputPerMillion < 0
                    || (cacheReadPerMillion != null && cacheReadPerMillion < 0)
                    || (cacheWritePerMillion != null && cacheWritePerMillion < 0)) {
                throw new IllegalArgumentException("a price per million tokens must not be negative");
            }
        }

        /** A price without its own rates for cached input (cached tokens cost as much as the others). */
        public Price(double inputPerMillion, double outputPerMillion, @Nullable String currency) {
            this(inputPerMillion, outputPerMillion, currency, null, null);
        }

        /** The cost of a call that used these tokens, without prompt caching, rounded to the micro-unit. */
        public double cost(long inputTokens, long outputTokens) {
            return cost(new TokenUsage(inputTokens, outputTokens));
        }

        /**
         * The cost of a call, rounded to the currency's micro-unit: input read from or written to the
         * prompt cache at its own rate when one is set, else at the input rate.
         */
        public double cost(TokenUsage usage) {
            long plain = usage.inputTokens() - usage.cacheReadTokens() - usage.cacheWriteTokens();
            BigDecimal micro = BigDecimal.valueOf(plain)
                    .multiply(BigDecimal.valueOf(inputPerMillion))
                    .add(BigDecimal.valueOf(usage.cacheReadTokens())
                            .multiply(BigDecimal.valueOf(
                                    cacheReadPerMillion == null ? inputPerMillion : cacheReadPerMillion)))
                    .add(BigDecimal.valueOf(usage.cacheWriteTokens())
                            .multiply(BigDecimal.valueOf(
                                    cacheWritePerMillion == null ? inputPerMillion : cacheWritePerMillion)))
                    .add(BigDecimal.valueOf(usage.outputTokens()).multiply(BigDecimal.valueOf(outputPerMillion)));
            // per million tokens -> currency: move the point six places; keep six decimals.
            return Costs.round(micro.movePointLeft(6).doubleValue());
        }
    }

    /** The price of {@code provider:model}, looked up by that key first, then by the model name. */
    public @Nullable Price priceOf(String provider, String model) {
        Price p = prices.get(provider + ":" + model);
        return p != null ? p : prices.get(model);
    }
}
