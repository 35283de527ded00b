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
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.anthropic.AnthropicChatModel;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import reactor.core.Disposable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * agent-core's model port over a Spring AI {@link ChatModel}. Spring AI 2.0 returns tool calls to
 * the caller and never runs them, which is what the loop needs: tool definitions are passed as
 * callbacks that refuse to run. {@link #stream} streams (Spring AI's {@code stream}, which assembles
 * tool-call fragments) and hands text pieces to the loop as they arrive; usage comes from the
 * provider's response or final chunk (estimated only when the provider reports none). 429, 5xx,
 * timeouts and connection failures are retried with jittered exponential back-off, or after the
 * provider's {@code Retry-After}, never past the agent's deadline; the endpoint's
 * {@link CircuitBreaker} fails calls fast while the provider is down. What still fails becomes a
 * {@link ModelException} whose code says why. The response attributes ({@code gen_ai.response.*},
 * request temperature and max tokens) go on the current span, the loop's {@code chat} span.
 */
public final class SpringAiModelPort implements ModelPort {

    private static final Logger log = LoggerFactory.getLogger(SpringAiModelPort.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
    static final AttributeKey<List<String>> FINISH_REASONS =
            AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    static final AttributeKey<Double> TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
    static final AttributeKey<Long> MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");

    /** What the port sends besides the prompt: options, and the limits it asked for (for the span). */
    record CallOptions(
            ChatOptions options, long maxTokens, @Nullable Double temperature) {}

    private final String provider;
    private final ChatModel chat;
    private final BiFunction<ModelRequest, List<ToolCallback>, CallOptions> options;
    private final ModelsProperties.Retry retry;
    private final CircuitBreaker breaker;
    private final boolean streaming;
    private final ModelsProperties.@Nullable Price price;
    private final boolean cacheOutsidePrompt;

    /**
     * @param options builds the provider's per-call options (model name, output limit, tools)
     * @param streaming whether {@link #stream} streams (else it answers in one piece)
     * @param price the model's price, or null when it has none
     */
    SpringAiModelPort(
            String provider,
            ChatModel chat,
            BiFunction<ModelRequest, List<ToolCallback>, CallOptions> options,
            ModelsProperties.Retry retry,
            CircuitBreaker breaker,
            boolean streaming,
            ModelsProperties.@Nullable Price price) {
        this.provider = provider;
        this.chat = chat;
        this.options = options;
        this.retry = retry;
        this.breaker = breaker;
        this.streaming = streaming;
        this.price = price;
        this.cacheOutsidePrompt = chat instanceof AnthropicChatModel;
    }

    @Override
    public ModelResponse call(ModelRequest request) throws InterruptedException {
        return answer(request, null);
    }

    @Override
    public ModelResponse stream(ModelRequest request, Consumer<String> textDeltas) throws InterruptedException {
        return answer(request, streaming ? textDeltas : null);
    }

    private ModelResponse answer(ModelRequest request, @Nullable Consumer<String> textDeltas)
            throws InterruptedException {
        CallOptions call = options.apply(request, callbacks(request.tools()));
        Prompt prompt = new Prompt(messages(request.messages()), call.options());
        long backoff = retry.initialBackoff().toMillis();
        for (int attempt = 1; ; attempt++) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (!breaker.tryAcquire()) {
                throw new ModelException(
                        "provider_circuit_open",
                        provider + " is failing: its circuit is open (next probe in about "
                                + breaker.secondsUntilProbe() + " s)");
            }
            Answer answer;
            try {
                answer = textDeltas == null ? Answer.of(chat.call(prompt)) : streamOnce(prompt, textDeltas);
            } catch (InterruptedException e) {
                breaker.onAbandoned();
                throw e;
            } catch (RuntimeException e) {
                if (Thread.currentThread().isInterrupted() || causedBy(e, InterruptedException.class)) {
                    breaker.onAbandoned();
                    throw new InterruptedException("model call interrupted");
                }
                ProviderError error = ProviderError.classify(provider, e);
                if (error.unavailable()) {
                    breaker.onFailure();
                } else {
                    breaker.onSuccess(); // it answered: whatever it said, it is there
                }
                // An attempt that opened the circuit is the last: the next would be refused anyway.
                boolean opened = breaker.state() == CircuitBreaker.State.OPEN;
                if (!error.retryable() || attempt >= retry.maxAttempts() || opened) {
                    String message = error.message() + (attempt > 1 ? " (after " + attempt + " attempts)" : "");
                    throw error.code().equals("provider_timeout")
                            ? ModelException.timeout(error.code(), message, e)
                            : new ModelException(error.code(), message, e);
                }
                Duration told = RetryAfter.of(e);
                long sleep;
                if (told != null) {
                    if (told.compareTo(retry.maxRetryAfter()) > 0) {
                        throw new ModelException(
                                error.code(),
                                error.message() + " (asked to retry after " + told.toSeconds()
                                        + " s, more than cadre.models.retry.max-retry-after)",
                                e);
                    }
                    // Honoured to the millisecond, plus a little jitter so callers told alike spread out.
                    sleep = told.toMillis()
                            + ThreadLocalRandom.current().nextLong(1 + Math.min(250, told.toMillis() / 10));
                } else {
                    sleep = Math.min(retry.maxBackoff().toMillis(), backoff)
                            + ThreadLocalRandom.current().nextLong(Math.max(1, backoff / 4));
                }
                Instant deadline = request.deadline();
                if (deadline != null && Instant.now().plusMillis(sleep).isAfter(deadline)) {
                    throw new ModelException(
                            error.code(),
                            error.message() + " (not retried: the wait of " + sleep
                                    + " ms would pass the agent's deadline)",
                            e);
                }
                log.info(
                        "{} call for agent {} failed ({}), attempt {}/{}; retrying in {} ms{}",
                        provider,
                        request.agent(),
                        error.code(),
                        attempt,
                        retry.maxAttempts(),
                        sleep,
                        told != null ? " (Retry-After)" : "");
                Thread.sleep(sleep);
                backoff = Math.min(retry.maxBackoff().toMillis(), backoff * 2);
                continue;
            }
            breaker.onSuccess();
            return convert(request, answer, call);
        }
    }

    /**
     * One streamed attempt: the chunks are handed from the client's threads to this (the loop's)
     * thread, which tells the text pieces and assembles the answer; interrupting it cancels the stream.
     */
    private Answer streamOnce(Prompt prompt, Consumer<String> textDeltas) throws InterruptedException {
        BlockingQueue<Object> chunks = new LinkedBlockingQueue<>();
        Object done = new Object();
        Disposable subscription = chat.stream(prompt)
                .subscribe(chunks::add, e -> chunks.add(new StreamFailure(e)), () -> chunks.add(done));
        try {
            Answer.Builder answer = new Answer.Builder();
            while (true) {
                Object next = chunks.take();
                if (next == done) {
                    return answer.build();
                }
                if (next instanceof StreamFailure f) {
                    throw f.error() instanceof RuntimeException r ? r : new IllegalStateException(f.error());
                }
                String piece = answer.add((ChatResponse) next);
                if (!piece.isEmpty()) {
                    textDeltas.accept(piece);
                }
            }
        } finally {
            subscription.dispose();
        }
    }

    private record StreamFailure(Throwable error) {}

    /** A provider's answer, whole or assembled from a stream. */
    record Answer(
            String text,
            List<org.springframework.ai.chat.messages.AssistantMessage.ToolCall> calls,
            @Nullable Integer inputTokens,
            @Nullable Integer outputTokens,
            @Nullable Long cacheReadTokens,
            @Nullable Long cacheWriteTokens,
            List<String> finishReasons,
            @Nullable String id,
            @Nullable String model,
            boolean empty) {

        static Answer of(@Nullable ChatResponse response) {
            Builder b = new Builder();
            if (response != null) {
                b.add(response);
            }
            return b.build();
        }

        /** Accumulates chunks: text appended, tool calls by id (the last fragment of an id wins), usage maxed. */
        static final class Builder {
            private final StringBuilder text = new StringBuilder();
            private final Map<String, org.springframework.ai.chat.messages.AssistantMessage.ToolCall> calls =
                    new LinkedHashMap<>();
            private final Map<Integer, String> finish = new TreeMap<>();
            private @Nullable Integer in;
            private @Nullable Integer out;
            private @Nullable Long cacheRead;
            private @Nullable Long cacheWrite;
            private @Nullable String id;
            private @Nullable String model;
            private boolean anyGeneration;

            /** Adds a chunk (or a whole response); returns its text. */
            String add(ChatResponse r) {
                StringBuilder piece = new StringBuilder();
                List<Generation> results = r.getResults() == null ? List.of() : r.getResults();
                for (int i = 0; i < results.size(); i++) {
                    Generation g = results.get(i);
                    anyGeneration = true;
                    org.springframework.ai.chat.messages.AssistantMessage o = g.getOutput();
                    if (o == null) {
                        continue;
                    }
                    if (o.getText() != null && !o.getText().isEmpty()) {
                        if (results.size() > 1 && !piece.isEmpty()) {
                            piece.append('\n'); // several choices of one response, as before streaming
                        }
                        piece.append(o.getText());
                    }
                    for (var c : o.getToolCalls()) {
                        String key = c.id() == null || c.id().isBlank() ? "#" + calls.size() : c.id();
                        calls.put(key, c);
                    }
                    String f = g.getMetadata() == null ? null : g.getMetadata().getFinishReason();
                    if (f != null && !f.isBlank()) {
                        finish.put(i, f.toLowerCase(Locale.ROOT));
                    }
                }
                ChatResponseMetadata meta = r.getMetadata();
                if (meta != null) {
                    Usage u = meta.getUsage();
                    if (u != null) {
                        in = max(in, u.getPromptTokens());
                        out = max(out, u.getCompletionTokens());
                        cacheRead = max(cacheRead, u.getCacheReadInputTokens());
                        cacheWrite = max(cacheWrite, u.getCacheWriteInputTokens());
                    }
                    if (meta.getId() != null && !meta.getId().isBlank()) {
                        id = meta.getId();
                    }
                    if (meta.getModel() != null && !meta.getModel().isBlank()) {
                        model = meta.getModel();
                    }
                }
                text.append(piece);
                return piece.toString();
            }

            private static @Nullable Integer max(@Nullable Integer a, @Nullable Integer b) {
                if (a == null) {
                    return b;
                }
                return b == null ? a : Math.max(a, b);
            }

            private static @Nullable Long max(@Nullable Long a, @Nullable Long b) {
                if (a == null) {
                    return b;
                }
                return b == null ? a : Math.max(a, b);
            }

            Answer build() {
                return new Answer(
                        text.toString(),
                        List.copyOf(calls.values()),
                        in,
                        out,
                        cacheRead,
                        cacheWrite,
                        List.copyOf(finish.values()),
                        id,
                        model,
                        !anyGeneration);
            }
        }
    }

    private ModelResponse convert(ModelRequest request, Answer answer, CallOptions call) {
        if (answer.empty()) {
            throw new ModelException("malformed_response", provider + " answered without any generation");
        }
        List<ToolCall> calls = new ArrayList<>();
        for (var c : answer.calls()) {
            String providerId = c.id() == null || c.id().isBlank() ? null : c.id();
            calls.add(new ToolCall(providerId == null ? "" : providerId, c.name(), arguments(c), providerId));
        }
        boolean truncated = false;
        for (String f : answer.finishReasons()) {
            truncated |= f.equals("length") || f.equals("max_tokens");
        }
        String text = answer.text();
        TokenUsage usage = usage(request, answer, text, calls);
        double cost = price == null ? 0 : price.cost(usage);
        Span span = Span.current();
        if (span.isRecording()) {
            if (answer.model() != null) {
                span.setAttribute(RESPONSE_MODEL, answer.model());
            }
            if (answer.id() != null) {
                span.setAttribute(RESPONSE_ID, answer.id());
            }
            if (!answer.finishReasons().isEmpty()) {
                span.setAttribute(FINISH_REASONS, answer.finishReasons());
            }
            span.setAttribute(MAX_TOKENS, call.maxTokens());
            if (call.temperature() != null) {
                span.setAttribute(TEMPERATURE, call.temperature());
            }
        }
        return new ModelResponse(text.isEmpty() ? null : text, calls, usage, truncated && calls.isEmpty(), cost, null);
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

    private TokenUsage usage(ModelRequest request, Answer answer, String text, List<ToolCall> calls) {
        Integer in = answer.inputTokens();
        Integer out = answer.outputTokens();
        long read = answer.cacheReadTokens() == null ? 0 : answer.cacheReadTokens();
        long written = answer.cacheWriteTokens() == null ? 0 : answer.cacheWriteTokens();
        if (in != null && out != null && (in > 0 || out > 0 || read > 0 || written > 0)) {
            // Anthropic's input_tokens leaves out what was read from or written to the prompt cache;
            // OpenAI's prompt_tokens already holds its cached_tokens. Either way the input counts all.
            long input = cacheOutsidePrompt ? in + read + written : Math.max(in, read + written);
            return new TokenUsage(input, out, read, written);
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
        // Results are paired with calls by the id the provider knows: its own when it gave one.
        Map<String, String> wireIds = new HashMap<>();
        for (Message m : history) {
            if (m instanceof AssistantMessage a) {
                for (ToolCall c : a.toolCalls()) {
                    wireIds.put(c.id(), c.wireId());
                }
            }
        }
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
                                c.wireId(), "function", c.name(), args));
                    }
                    out.add(org.springframework.ai.chat.messages.AssistantMessage.builder()
                            .content(a.text() == null ? "" : a.text())
                            .toolCalls(calls)
                            .build());
                }
                case ToolResultMessage t ->
                    pending.add(new ToolResponseMessage.ToolResponse(
                            wireIds.getOrDefault(t.callId(), t.callId()),
                            t.toolName(),
                            UntrustedText.fence("tool", t.content())));
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
