package dev.cadre.platform.models;

import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.observability.OutboundTraceContext;
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

    private static ModelsProperties.Provider withEnvKey(ModelsProperties.Provider p, Environment env, String variable) {
        String key = env.getProperty(variable, "");
        if (p == null) {
            return key.isBlank() ? null : new ModelsProperties.Provider(null, null, key, null);
        }
        return p.hasKey() || key.isBlank() ? p : new ModelsProperties.Provider(p.type(), p.baseUrl(), key, p.timeout());
    }

    /** Resolves {@code provider:model}: one ChatModel per provider, the model name passed per call. */
    static final class Providers implements AgentCatalog.ProviderModels {

        private final Map<String, ModelsProperties.Provider> configured;
        private final ModelsProperties config;
        private final OutboundTraceContext trace;
        private final Map<String, ModelPort> ports = new ConcurrentHashMap<>();
        private final Map<String, ChatModel> chats = new ConcurrentHashMap<>();

        Providers(
                Map<String, ModelsProperties.Provider> configured,
                ModelsProperties config,
                OutboundTraceContext trace) {
            this.configured = Map.copyOf(configured);
            this.config = config;
            this.trace = trace;
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
            return new SpringAiModelPort(
                    ref.provider(),
                    chat,
                    (request, tools) -> {
                        int max = (int) Math.max(1, Math.min(cap, request.maxOutputTokens()));
                        ChatOptions options = switch (type) {
                            case "openai" ->
                                OpenAiChatOptions.builder()
                                        .model(ref.model())
                                        .timeout(timeout)
                                        .maxRetries(0)
                                        .maxTokens(max)
                                        .toolCallbacks(tools)
                                        // built per call, on the loop's thread: the chat span is current
                                        .customHeaders(trace.headers())
                                        .build();
                            case "anthropic" ->
                                AnthropicChatOptions.builder()
                                        .model(ref.model())
                                        .timeout(timeout)
                                        .maxRetries(0)
                                        .maxTokens(max)
                                        .toolCallbacks(tools)
                                        .httpHeaders(trace.headers())
                                        .build();
                            default ->
                                org.springframework.ai.ollama.api.OllamaChatOptions.builder()
                                        .model(ref.model())
                                        .numPredict(max)
                                        .toolCallbacks(tools)
                                        .build();
                        };
                        return options;
                    },
                    config.retry());
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
