package dev.cadre.platform.models;

import dev.cadre.platform.observability.OutboundTraceContext;
import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/** Ollama's native API over Spring's RestClient on the JDK HTTP client, with Spring AI's own retries off. */
final class OllamaModels {

    private OllamaModels() {}

    static ChatModel chatModel(String baseUrl, String model, Duration timeout, OutboundTraceContext trace) {
        JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build());
        factory.setReadTimeout(timeout);
        OllamaApi api = new OllamaApi.Builder()
                .baseUrl(baseUrl)
                .restClientBuilder(RestClient.builder().requestFactory(factory).requestInterceptor(trace.interceptor()))
                .build();
        RetryTemplate noRetries =
                new RetryTemplate(RetryPolicy.builder().maxRetries(0).build());
        return OllamaChatModel.builder()
                .ollamaApi(api)
                .options(OllamaChatOptions.builder().model(model).build())
                .retryTemplate(noRetries)
                .build();
    }
}
