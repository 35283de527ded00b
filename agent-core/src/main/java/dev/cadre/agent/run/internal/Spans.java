package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.telemetry.TelemetryOptions;
import dev.cadre.agent.tool.Risk;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The spans of DESIGN.md section 2, following the OpenTelemetry GenAI conventions (development
 * status) plus Cadre's own {@code cadre.*} attributes; in one place so the loop stays readable.
 */
public final class Spans {

    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
    public static final AttributeKey<String> AGENT_NAME = AttributeKey.stringKey("gen_ai.agent.name");
    public static final AttributeKey<String> AGENT_ID = AttributeKey.stringKey("gen_ai.agent.id");
    public static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("gen_ai.conversation.id");
    public static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
    public static final AttributeKey<String> REQUEST_MODEL = AttributeKey.stringKey("gen_ai.request.model");
    public static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
    public static final AttributeKey<Long> OUTPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.output_tokens");
    // On invoke_agent: the agent's own tokens plus those of every worker below it.
    /** Of the input tokens, those read from the provider's prompt cache (semantic conventions' name). */
    public static final AttributeKey<Long> CACHE_READ_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
    /** Of the input tokens, those written to the provider's prompt cache (semantic conventions' name). */
    public static final AttributeKey<Long> CACHE_WRITE_TOKENS =
            AttributeKey.longKey("gen_ai.usage.cache_creation.input_tokens");

    public static final AttributeKey<Long> TREE_INPUT_TOKENS = AttributeKey.longKey("cadre.tree.input_tokens");
    public static final AttributeKey<Long> TREE_OUTPUT_TOKENS = AttributeKey.longKey("cadre.tree.output_tokens");
    public static final AttributeKey<String> TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    public static final AttributeKey<String> TOOL_CALL_ID = AttributeKey.stringKey("gen_ai.tool.call.id");
    public static final AttributeKey<String> TOOL_TYPE = AttributeKey.stringKey("gen_ai.tool.type");
    public static final AttributeKey<String> TOOL_ARGUMENTS = AttributeKey.stringKey("gen_ai.tool.call.arguments");
    public static final AttributeKey<String> TOOL_RESULT = AttributeKey.stringKey("gen_ai.tool.call.result");
    public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("cadre.run.id");
    public static final AttributeKey<String> SESSION_ID = AttributeKey.stringKey("cadre.session.id");
    public static final AttributeKey<String> PARENT_SESSION_ID = AttributeKey.stringKey("cadre.session.parent_id");
    public static final AttributeKey<Long> DEPTH = AttributeKey.longKey("cadre.depth");
    public static final AttributeKey<List<String>> TOOLS_CALLED = AttributeKey.stringArrayKey("cadre.tools.called");
    public static final AttributeKey<Long> ITERATIONS = AttributeKey.longKey("cadre.iterations");
    public static final AttributeKey<String> RISK = AttributeKey.stringKey("cadre.tool.risk");
    public static final AttributeKey<String> STATUS = AttributeKey.stringKey("cadre.status");
    /** On execute_tool: UTF-8 bytes the tool returned, and how many of them its model read. */
    public static final AttributeKey<Long> TOOL_OUTPUT_ORIGINAL_BYTES =
            AttributeKey.longKey("cadre.tool.output.original_bytes");

    public static final AttributeKey<Long> TOOL_OUTPUT_DELIVERED_BYTES =
            AttributeKey.longKey("cadre.tool.output.delivered_bytes");
    /** On execute_tool when the result was capped: the handle the full output is kept under. */
    public static final AttributeKey<String> TOOL_OUTPUT_HANDLE = AttributeKey.stringKey("cadre.tool.output.handle");

    /** What a model call cost, in the price table's currency (set when the model has a price). */
    public static final AttributeKey<Double> COST = AttributeKey.doubleKey("cadre.cost");

    /** On a chat span a fallback model answered: the agent's configured ({@code provider:model}) model. */
    public static final AttributeKey<String> CONFIGURED_MODEL = AttributeKey.stringKey("cadre.model.configured");

    public static final AttributeKey<String> RESPONSE_MODEL = AttributeKey.stringKey("gen_ai.response.model");
    public static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
    public static final AttributeKey<List<String>> FINISH_REASONS =
            AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
    public static final AttributeKey<Double> REQUEST_TEMPERATURE = AttributeKey.doubleKey("gen_ai.request.temperature");
    public static final AttributeKey<Long> REQUEST_MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");

    private final Tracer tracer;
    private final TelemetryOptions options;

    public Spans(OpenTelemetry openTelemetry, TelemetryOptions options) {
        this.tracer = openTelemetry.getTracer("dev.cadre.agent-core");
        this.options = options;
    }

    public Span startAgent(
            Context parent,
            String agent,
            String runId,
            String sessionId,
            @Nullable String parentSessionId,
            int depth,
            ModelRef model) {
        var builder = tracer.spanBuilder("invoke_agent " + agent)
                .setParent(parent)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OPERATION, "invoke_agent")
                .setAttribute(AGENT_NAME, agent)
                .setAttribute(AGENT_ID, sessionId)
                .setAttribute(CONVERSATION_ID, sessionId)
                .setAttribute(PROVIDER, model.provider())
                .setAttribute(REQUEST_MODEL, model.model())
                .setAttribute(RUN_ID, runId)
                .setAttribute(SESSION_ID, sessionId)
                .setAttribute(DEPTH, (long) depth);
        if (parentSessionId != null) {
            builder.setAttribute(PARENT_SESSION_ID, parentSessionId);
        }
        return builder.startSpan();
    }

    /**
     * Ends an agent's span. Its {@code gen_ai.usage.*} are its own model calls only (the sum of its
     * {@code chat} children), so summing a trace's agent spans never counts a token twice;
     * {@code cadre.tree.*} adds everything its workers spent.
     */
    public void endAgent(
            Span span,
            String status,
            @Nullable Failure failure,
            TokenUsage own,
            TokenUsage tree,
            int iterations,
            List<String> toolsCalled) {
        if (!span.isRecording()) {
            span.end();
            return;
        }
        span.setAttribute(INPUT_TOKENS, own.inputTokens());
        span.setAttribute(OUTPUT_TOKENS, own.outputTokens());
        cached(span, own);
        span.setAttribute(TREE_INPUT_TOKENS, tree.inputTokens());
        span.setAttribute(TREE_OUTPUT_TOKENS, tree.outputTokens());
        span.setAttribute(ITERATIONS, (long) iterations);
        span.setAttribute(TOOLS_CALLED, List.copyOf(toolsCalled));
        end(span, status, failure);
    }

    public Span startChat(Context parent, ModelRef model, String runId, String sessionId, String agent) {
        return tracer.spanBuilder("chat " + model.model())
                .setParent(parent)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(OPERATION, "chat")
                .setAttribute(PROVIDER, model.provider())
                .setAttribute(REQUEST_MODEL, model.model())
                .setAttribute(AGENT_NAME, agent)
                .setAttribute(CONVERSATION_ID, sessionId)
                .setAttribute(RUN_ID, runId)
                .startSpan();
    }

    /**
     * Names a chat span after the fallback model that answered: the request that got the answer went
     * to {@code answered}, so its name, provider and {@code gen_ai.request.model} say so; the agent's
     * configured model stays as {@code cadre.model.configured}.
     */
    public void answeredBy(Span span, ModelRef answered, ModelRef configured) {
        if (!span.isRecording()) {
            return;
        }
        span.updateName("chat " + answered.model());
        span.setAttribute(PROVIDER, answered.provider());
        span.setAttribute(REQUEST_MODEL, answered.model());
        span.setAttribute(CONFIGURED_MODEL, configured.toString());
    }

    private static void cached(Span span, TokenUsage usage) {
        if (usage.cacheReadTokens() > 0) {
            span.setAttribute(CACHE_READ_TOKENS, usage.cacheReadTokens());
        }
        if (usage.cacheWriteTokens() > 0) {
            span.setAttribute(CACHE_WRITE_TOKENS, usage.cacheWriteTokens());
        }
    }

    public void endChat(Span span, @Nullable TokenUsage usage, @Nullable Failure failure) {
        endChat(span, usage, failure, 0);
    }

    /**
     * Ends a chat span; {@code cost} (when above 0) becomes {@code cadre.cost}. The response attributes
     * ({@code gen_ai.response.*}, request temperature and max tokens) are set by the model port, which
     * alone sees the provider's answer, on this span while it is current.
     */
    public void endChat(Span span, @Nullable TokenUsage usage, @Nullable Failure failure, double cost) {
        if (usage != null && span.isRecording()) {
            span.setAttribute(INPUT_TOKENS, usage.inputTokens());
            span.setAttribute(OUTPUT_TOKENS, usage.outputTokens());
            cached(span, usage);
        }
        if (cost > 0 && span.isRecording()) {
            span.setAttribute(COST, cost);
        }
        end(span, failure == null ? "ok" : "failed", failure);
    }

    public Span startTool(
            Context parent,
            String tool,
            String callId,
            Risk risk,
            boolean worker,
            String runId,
            String sessionId,
            JsonNode arguments) {
        Span span = tracer.spanBuilder("execute_tool " + tool)
                .setParent(parent)
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(OPERATION, "execute_tool")
                .setAttribute(TOOL_NAME, tool)
                .setAttribute(TOOL_CALL_ID, callId)
                .setAttribute(TOOL_TYPE, worker ? "agent" : "function")
                .setAttribute(RISK, risk.name())
                .setAttribute(RUN_ID, runId)
                .setAttribute(SESSION_ID, sessionId)
                .startSpan();
        if (options.captureContent() && span.isRecording()) {
            span.setAttribute(TOOL_ARGUMENTS, options.redactor().redact(tool, arguments.toString()));
        }
        return span;
    }

    /** Records on a tool's span how big its output was and how much of it the model read. */
    public void toolOutput(Span span, long originalBytes, long deliveredBytes, @Nullable String handle) {
        span.setAttribute(TOOL_OUTPUT_ORIGINAL_BYTES, originalBytes);
        span.setAttribute(TOOL_OUTPUT_DELIVERED_BYTES, deliveredBytes);
        if (handle != null) {
            span.setAttribute(TOOL_OUTPUT_HANDLE, handle);
        }
    }

    public void endTool(Span span, String tool, String status, String content, @Nullable Failure failure) {
        if (options.captureContent() && span.isRecording()) {
            span.setAttribute(TOOL_RESULT, options.redactor().redact(tool, content));
        }
        end(span, status, failure);
    }

    private static void end(Span span, String status, @Nullable Failure failure) {
        if (span.isRecording()) {
            span.setAttribute(STATUS, status);
            if (failure != null) {
                span.setAttribute(ERROR_TYPE, failure.category().name());
                span.setStatus(StatusCode.ERROR, failure.message());
            }
        }
        span.end();
    }
}
