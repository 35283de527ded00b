package dev.cadre.platform.models;

import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.observability.OutboundTraceContext;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.anthropic.AnthropicChatOptions;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The model providers, chosen explicitly: no Spring AI starter is on the class path, so no
 * {@code ChatModel} bean exists by accident; this builds exactly the providers configured under
 * {@code cadre.models.*} and serves them to the agent catalog by name. With nothing configured (the
 * embedded default) the only provider is {@code scripted} and nothing reaches the network.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ModelsProperties.class)
class ModelsConfiguration {

    private static final Logger log = LoggerFactory.getLogger(ModelsConfiguration.class);

    @Bean
    AgentCatalog.ProviderModels providerModels(
            ModelsProperties config, Environment env, ObjectProvider<OpenTelemetry> openTelemetry) {
        Map<String, ModelsProperties.Provider> configured = new LinkedHashMap<>();
        ModelsProperties.Provider openai = withEnvKey(config.openai(), env, "CADRE_OPENAI_API_KEY");
        if (openai != null && (openai.hasKey() || openai.hasUrl())) {
            configured.put("openai", openai);
        }
        if (config.ollama() != null && config.ollama().hasUrl()) {
            configured.put("ollama", config.ollama());
        }
        ModelsProperties.Provider anthropic = withEnvKey(config.anthropic(), env, "CADRE_ANTHROPIC_API_KEY");
        if (anthropic != null && anthropic.hasKey()) {
            configured.put("anthropic", anthropic);
        }
        config.providers().forEach(configured::put);
        log.info(
                "Model providers: scripted{}",
                configured.isEmpty() ? "" : ", " + String.join(", ", configured.keySet()));
        return new Providers(
                configured, config, new OutboundTraceContext(openTelemetry.getIfAvailable(OpenTelemetry::noop)));
    }

    /** {@code cadre_provider_circuit_state{provider}}: 0 closed, 1 open, 2 half-open. */
    @Bean
    ProviderCircuits providerCircuits(AgentCatalog.ProviderModels providers, ObjectProvider<MeterRegistry> registry) {
        ProviderCircuits circuits = providers instanceof Providers p
                ? p.circuits()
                : new ProviderCircuits(
                        List.of(), new ModelsProperties.CircuitBreakerSettings(null, null), System::nanoTime);
        MeterRegistry r = registry.getIfAvailable();
        if (r != null) {
            for (CircuitBreaker b : circuits.all()) {
                Gauge.builder("cadre.provider.circuit.state", b, c -> c.state().gauge())
                        .description("Circuit breaker of a model provider endpoint: 0 closed, 1 open, 2 half-open")
                        .tag("provider", b.provider())
                        .register(r);
            }
        }
        return circuits;
    }

    /**
     * DEGRADED while a provider's circuit is open or half-open: the instance still serves (other
     * providers, fallbacks, everything but that model), so it stays in rotation — never DOWN, and not
     * part of the readiness group.
     */
    @Bean
    HealthIndicator modelProviders(ProviderCircuits circuits) {
        return () -> {
            Map<String, String> states = new LinkedHashMap<>();
            boolean degraded = false;
            for (CircuitBreaker b : circuits.all()) {
                CircuitBreaker.State st = b.state();
                states.put(b.provider(), st.name().toLowerCase(java.util.Locale.ROOT));
                degraded |= st != CircuitBreaker.State.CLOSED;
            }
            Health.Builder h = degraded
                    ? Health.status(new Status("DEGRADED", "a model provider's circuit is open"))
                    : Health.up();
            return h.withDetail("circuits", states).build();
        };
    }

    private static ModelsProperties.Provider withEnvKey(ModelsProperties.Provider p, Environment env, String variable) {
        String key = env.getProperty(variable, "");
        if (p == null) {
            return key.isBlank() ? null : new ModelsProperties.Provider(null, null, key, null);
        }
        return p.hasKey() || key.isBlank()
                ? p
                : new ModelsProperties.Provider(
                        p.type(), p.baseUrl(), key, p.timeout(), p.stream(), p.maxTokensField(), p.temperature());
    }

    /** Resolves {@code provider:model}: one ChatModel per provider, the model name passed per call. */
    static final class Providers implements AgentCatalog.ProviderModels {

        private final Map<String, ModelsProperties.Provider> configured;
        private final ModelsProperties config;
        private final OutboundTraceContext trace;
        private final Map<String, ModelPort> ports = new ConcurrentHashMap<>();
        private final Map<String, ChatModel> chats = new ConcurrentHashMap<>();
        private final ProviderCircuits circuits;

        Providers(
                Map<String, ModelsProperties.Provider> configured,
                ModelsProperties config,
                OutboundTraceContext trace) {
            this(configured, config, trace, System::nanoTime);
        }

        /** @param nanoClock the breakers' clock (tests move it instead of waiting) */
        Providers(
                Map<String, ModelsProperties.Provider> configured,
                ModelsProperties config,
                OutboundTraceContext trace,
                java.util.function.LongSupplier nanoClock) {
            this.configured = Map.copyOf(configured);
            this.config = config;
            this.trace = trace;
            this.circuits = new ProviderCircuits(configured.keySet(), config.circuitBreaker(), nanoClock);
            configured.forEach((name, p) -> {
                String type = p.typeOr(name);
                if (!List.of("openai", "ollama", "anthropic").contains(type)) {
                    throw new IllegalArgumentException("cadre.models.providers." + name + ".type: '" + type
                            + "' is not one of openai, ollama, anthropic");
                }
            });
        }

        @Override
        public Optional<ModelPort> model(ModelRef ref) {
            ModelsProperties.Provider p = configured.get(ref.provider());
            if (p == null) {
                return Optional.empty();
            }
            return Optional.of(ports.computeIfAbsent(ref.toString(), k -> port(ref, p)));
        }

        ProviderCircuits circuits() {
            return circuits;
        }

        @Override
        public List<String> providers() {
            List<String> out = new java.util.ArrayList<>(List.of("scripted"));
            out.addAll(configured.keySet());
            return out;
        }

        private ModelPort port(ModelRef ref, ModelsProperties.Provider p) {
            String type = p.typeOr(ref.provider());
            ChatModel chat = chats.computeIfAbsent(ref.provider(), n -> chatModel(type, p, ref.model()));
            int cap = config.maxOutputTokens();
            java.time.Duration timeout = p.timeout() == null ? config.timeout() : p.timeout();
            boolean stream = p.streams();
            Double temperature = p.temperature();
            return new SpringAiModelPort(
                    ref.provider(),
                    chat,
                    (request, tools) -> {
                        int max = (int) Math.max(1, Math.min(cap, request.maxOutputTokens()));
                        ChatOptions options = switch (type) {
                            case "openai" -> {
                                var o = OpenAiChatOptions.builder()
                                        .model(ref.model())
                                        .timeout(timeout)
                                        .maxRetries(0)
                                        .toolCallbacks(tools)
                                        // usage of a stream comes in its final chunk, when asked for
                                        .streamUsage(stream)
                                        // built per call, on the loop's thread: the chat span is current
                                        .customHeaders(trace.headers());
                                if (p.usesMaxCompletionTokens()) {
                                    o.maxCompletionTokens(max); // OpenAI's reasoning models refuse max_tokens
                                } else {
                                    o.maxTokens(max);
                                }
                                if (temperature != null) {
                                    o.temperature(temperature);
                                }
                                yield o.build();
                            }
                            case "anthropic" -> {
                                var o = AnthropicChatOptions.builder()
                                        .model(ref.model())
                                        .timeout(timeout)
                                        .maxRetries(0)
                                        .maxTokens(max)
                                        .toolCallbacks(tools)
                                        .httpHeaders(trace.headers());
                                if (temperature != null) {
                                    o.temperature(temperature);
                                }
                                yield o.build();
                            }
                            default -> {
                                var o = org.springframework.ai.ollama.api.OllamaChatOptions.builder()
                                        .model(ref.model())
                                        .numPredict(max)
                                        .toolCallbacks(tools);
                                if (temperature != null) {
                                    o.temperature(temperature);
                                }
                                yield o.build();
                            }
                        };
                        return new SpringAiModelPort.CallOptions(options, max, temperature);
                    },
                    config.retry(),
                    circuits.of(ref.provider()),
                    stream,
                    config.priceOf(ref.provider(), ref.model()));
        }

        private ChatModel chatModel(String type, ModelsProperties.Provider p, String model) {
            java.time.Duration timeout = p.timeout() == null ? config.timeout() : p.timeout();
            return switch (type) {
                case "openai" -> {
                    var options = OpenAiChatOptions.builder()
                            .model(model)
                            .timeout(timeout)
                            .maxRetries(0); // retried by SpringAiModelPort, with one policy for all providers
                    if (p.hasUrl()) {
                        options.baseUrl(p.baseUrl());
                    }
                    // vLLM and Ollama's /v1 accept any key; the client insists on one.
                    options.apiKey(p.hasKey() ? p.apiKey() : "none");
                    yield OpenAiChatModel.builder().options(options.build()).build();
                }
                case "anthropic" -> {
                    var options = AnthropicChatOptions.builder()
                            .model(model)
                            .timeout(timeout)
                            .maxRetries(0)
                            .apiKey(p.apiKey());
                    if (p.hasUrl()) {
                        options.baseUrl(p.baseUrl());
                    }
                    yield AnthropicChatModel.builder().options(options.build()).build();
                }
                case "ollama" -> OllamaModels.chatModel(p.baseUrl(), model, timeout, trace);
                default -> throw new IllegalArgumentException("unknown provider type " + type);
            };
        }
    }
}
