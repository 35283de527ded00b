package dev.cadre.platform.models;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.AssistantMessage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelException;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.SystemMessage;
import dev.cadre.agent.model.TokenEstimator;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.model.UntrustedText;
import dev.cadre.agent.model.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * agent-core's model port over a Spring AI {@link ChatModel}. Spring AI 2.0 returns tool calls to
 * the caller and never runs them, which is what the loop needs: tool definitions are passed as
 * callbacks that refuse to run. Usage comes from the provider's response (estimated only when the
 * provider reports none); 429, 5xx, timeouts and connection failures are retried with exponential
 * back-off and jitter; what still fails becomes a {@link ModelException} whose code says why.
 */
public final class SpringAiModelPort implements ModelPort {

    private static final Logger log = LoggerFactory.getLogger(SpringAiModelPort.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String provider;
    private final ChatModel chat;
    private final BiFunction<ModelRequest, List<ToolCallback>, ChatOptions> options;
    private final ModelsProperties.Retry retry;

    /**
     * @param options builds the provider's per-call options (model name, output limit, tools)
     */
    public SpringAiModelPort(
            String provider,
            ChatModel chat,
            BiFunction<ModelRequest, List<ToolCallback>, ChatOptions> options,
            ModelsProperties.Retry retry) {
        this.provider = provider;
        this.chat = chat;
        this.options = options;
        this.retry = retry;
    }

    @Override
    public ModelResponse call(ModelRequest request) throws InterruptedException {
        Prompt prompt = new Prompt(messages(request.messages()), options.apply(request, callbacks(request.tools())));
        long backoff = retry.initialBackoff().toMillis();
        for (int attempt = 1; ; attempt++) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            ChatResponse response;
            try {
                response = chat.call(prompt);
            } catch (RuntimeException e) {
                if (Thread.currentThread().isInterrupted() || causedBy(e, InterruptedException.class)) {
                    throw new InterruptedException("model call interrupted");
                }
                ProviderError error = ProviderError.classify(provider, e);
                if (!error.retryable() || attempt >= retry.maxAttempts()) {
                    String message = error.message() + (attempt > 1 ? " (after " + attempt + " attempts)" : "");
                    throw error.code().equals("provider_timeout")
                            ? ModelException.timeout(error.code(), message, e)
                            : new ModelException(error.code(), message, e);
                }
                long sleep = Math.min(retry.maxBackoff().toMillis(), backoff)
                        + ThreadLocalRandom.current().nextLong(Math.max(1, backoff / 4));
                log.info(
                        "{} call for agent {} failed ({}), attempt {}/{}; retrying in {} ms",
                        provider,
                        request.agent(),
                        error.code(),
                        attempt,
                        retry.maxAttempts(),
                        sleep);
                Thread.sleep(sleep);
                backoff = Math.min(retry.maxBackoff().toMillis(), backoff * 2);
                continue;
            }
            return convert(request, response);
        }
    }

    private ModelResponse convert(ModelRequest request, @Nullable ChatResponse response) {
        if (response == null
                || response.getResults() == null
                || response.getResults().isEmpty()) {
            throw new ModelException("malformed_response", provider + " answered without any generation");
        }
        StringBuilder text = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        boolean truncated = false;
        for (Generation g : response.getResults()) {
            org.springframework.ai.chat.messages.AssistantMessage out = g.getOutput();
            if (out == null) {
                continue;
            }
            if (out.getText() != null && !out.getText().isEmpty()) {
                text.append(text.isEmpty() ? "" : "\n").append(out.getText());
            }
            for (org.springframework.ai.chat.messages.AssistantMessage.ToolCall c : out.getToolCalls()) {
                calls.add(new ToolCall(c.id() == null ? "" : c.id(), c.name() == null ? "" : c.name(), arguments(c)));
            }
            String finish = g.getMetadata() == null ? null : g.getMetadata().getFinishReason();
            if (finish != null) {
                String f = finish.toLowerCase(Locale.ROOT);
                truncated |= f.equals("length") || f.equals("max_tokens");
            }
        }
        TokenUsage usage = usage(request, response, text.toString(), calls);
        return new ModelResponse(text.isEmpty() ? null : text.toString(), calls, usage, truncated && calls.isEmpty());
    }

    /**
     * The call's arguments as JSON. What is not a JSON object is handed to the loop as it came (the
     * value, or the raw text as a string node when it does not parse): the loop answers that call with
     * an error result the model can correct, so one malformed call never fails the run.
     */
    static JsonNode arguments(org.springframework.ai.chat.messages.AssistantMessage.ToolCall c) {
        String args = c.arguments();
        if (args == null || args.isBlank()) {
            return JSON.createObjectNode();
        }
        try {
            return JSON.readTree(args);
        } catch (RuntimeException e) {
            return JSON.getNodeFactory().stringNode(args);
        }
    }

    private TokenUsage usage(ModelRequest request, ChatResponse response, String text, List<ToolCall> calls) {
        Usage u = response.getMetadata() == null ? null : response.getMetadata().getUsage();
        Integer in = u == null ? null : u.getPromptTokens();
        Integer out = u == null ? null : u.getCompletionTokens();
        if (in != null && out != null && (in > 0 || out > 0)) {
            return new TokenUsage(in, out);
        }
        // The provider reported nothing: estimate, so budgets still bind.
        long estimatedIn = TokenEstimator.CHARACTERS_DIV_4.estimate(request.messages(), request.tools());
        long estimatedOut = TokenEstimator.ofText(text);
        for (ToolCall c : calls) {
            estimatedOut += TokenEstimator.ofText(c.name() + c.arguments());
        }
        return new TokenUsage(estimatedIn, estimatedOut);
    }

    static List<org.springframework.ai.chat.messages.Message> messages(List<Message> history) {
        List<org.springframework.ai.chat.messages.Message> out = new ArrayList<>();
        List<ToolResponseMessage.ToolResponse> pending = new ArrayList<>();
        for (Message m : history) {
            if (!(m instanceof ToolResultMessage) && !pending.isEmpty()) {
                out.add(ToolResponseMessage.builder()
                        .responses(List.copyOf(pending))
                        .build());
                pending.clear();
            }
            switch (m) {
                // Every prompt explains the data fence; tool output (a web page, a log line, a remote
                // agent's answer) is fenced, so text in it is read as data, never as instructions.
                case SystemMessage s ->
                    out.add(new org.springframework.ai.chat.messages.SystemMessage(
                            UntrustedText.SYSTEM_NOTE + "\n\n" + s.text()));
                case UserMessage u -> out.add(new org.springframework.ai.chat.messages.UserMessage(u.text()));
                case AssistantMessage a -> {
                    List<org.springframework.ai.chat.messages.AssistantMessage.ToolCall> calls = new ArrayList<>();
                    for (ToolCall c : a.toolCalls()) {
                        // A call whose arguments were not an object goes back as {}: Anthropic's API takes
                        // only an object as tool input, and the call's error result says what was wrong.
                        String args = c.arguments().isObject() ? c.arguments().toString() : "{}";
                        calls.add(new org.springframework.ai.chat.messages.AssistantMessage.ToolCall(
                                c.id(), "function", c.name(), args));
                    }
                    out.add(org.springframework.ai.chat.messages.AssistantMessage.builder()
                            .content(a.text() == null ? "" : a.text())
                            .toolCalls(calls)
                            .build());
                }
                case ToolResultMessage t ->
                    pending.add(new ToolResponseMessage.ToolResponse(
                            t.callId(), t.toolName(), UntrustedText.fence("tool", t.content())));
            }
        }
        if (!pending.isEmpty()) {
            out.add(ToolResponseMessage.builder()
                    .responses(List.copyOf(pending))
                    .build());
        }
        return out;
    }

    static List<ToolCallback> callbacks(List<ToolDefinition> tools) {
        List<ToolCallback> out = new ArrayList<>();
        for (ToolDefinition t : tools) {
            org.springframework.ai.tool.definition.ToolDefinition def = DefaultToolDefinition.builder()
                    .name(t.name())
                    .description(t.description())
                    .inputSchema(t.parametersSchema().toString())
                    .build();
            out.add(new ToolCallback() {
                @Override
                public org.springframework.ai.tool.definition.ToolDefinition getToolDefinition() {
                    return def;
                }

                @Override
                public String call(String toolInput) {
                    // Cadre's loop runs tools (approvals, journal, spans); the model only asks for them.
                    throw new UnsupportedOperationException("tool " + t.name() + " is run by Cadre's agent loop");
                }
            });
        }
        return out;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
