package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCode;
import dev.cadre.agent.event.AgentEvent;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.run.SubagentOutcome;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.ToolResult;
import dev.cadre.agent.tool.output.ToolOutputReadTool;
import dev.cadre.agent.tool.output.ToolOutputs;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The acting half of the loop, one model turn at a time: validates every call before any starts,
 * runs the non-{@code APPROVE} calls concurrently on virtual threads and the {@code APPROVE} ones one by
 * one after them, and reports the parent-level events of each call in call order.
 */
final class TurnRunner {

    private final AgentContext ctx;
    private final SessionStream stream;
    private final ToolRegistry tools;
    private final List<ToolDefinition> definitions;
    private final ToolCallExecutor executor;
    // Every agent may page through its run's capped outputs, whatever its whitelist.
    private final Tool readTool;

    TurnRunner(
            AgentContext ctx,
            SessionStream stream,
            ToolRegistry tools,
            List<ToolDefinition> definitions,
            ToolCallExecutor executor) {
        this.ctx = ctx;
        this.stream = stream;
        this.tools = tools;
        this.definitions = definitions;
        this.executor = executor;
        ToolOutputs outputs = ctx.rt().toolOutputs();
        this.readTool = new ToolOutputReadTool(
                outputs,
                outputs.budget().capFor(ToolOutputs.READ_TOOL, ctx.spec().toolOutput()));
    }

    /**
     * Runs the turn's calls; null when the loop was stopped before all of them ended, else the results
     * in call order.
     *
     * @param subagentCounters per worker, how many sessions this agent started (numbers child sessions)
     */
    ToolResult @Nullable [] run(Turn turn, Map<String, Integer> subagentCounters, Context context) {
        List<ToolCall> calls = turn.calls();
        int n = calls.size();
        CallPlan[] plans = new CallPlan[n];
        for (int i = 0; i < n; i++) {
            plans[i] = plan(calls.get(i), subagentCounters);
        }
        ToolResult[] results = new ToolResult[n];

        for (int i = 0; i < n; i++) {
            ToolCall call = calls.get(i);
            CallPlan plan = plans[i];
            stream.emit(m -> new AgentEvent.ToolCallStart(
                    m, call.id(), call.name(), call.arguments(), plan.risk(), plan instanceof CallPlan.Delegate));
        }
        // Malformed calls are answered before any call of the turn starts (seed 002: unknown_subagent),
        // each in its own failed execute_tool span like every other call.
        for (int i = 0; i < n; i++) {
            if (plans[i] instanceof CallPlan.Rejected r) {
                results[i] = executor.refuse(calls.get(i), r, context);
                afterCall(i, results[i], turn);
            }
        }
        List<Integer> concurrent = new ArrayList<>();
        List<Integer> sequential = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (plans[i] instanceof CallPlan.Rejected) {
                continue;
            }
            (plans[i].risk() == Risk.APPROVE ? sequential : concurrent).add(i);
        }
        if (concurrent.size() == 1) {
            int i = concurrent.getFirst();
            results[i] = executor.execute(i, plans[i], turn, context);
            afterCall(i, results[i], turn);
        } else if (concurrent.size() > 1 && !runConcurrently(concurrent, plans, results, turn, context)) {
            return null;
        }
        // APPROVE calls one by one, after the concurrent batch: never concurrently with another call.
        for (int i : sequential) {
            if (ctx.scope().stopReason() != null) {
                return null;
            }
            results[i] = executor.execute(i, plans[i], turn, context);
            afterCall(i, results[i], turn);
        }
        return ctx.scope().stopReason() != null ? null : results;
    }

    private boolean runConcurrently(
            List<Integer> concurrent, CallPlan[] plans, ToolResult[] results, Turn turn, Context context) {
        List<CompletableFuture<ToolResult>> futures = new ArrayList<>(concurrent.size());
        for (int i : concurrent) {
            CompletableFuture<ToolResult> future = new CompletableFuture<>();
            CallPlan plan = plans[i];
            if (plan instanceof CallPlan.Delegate d) {
                // Spawned now; it may still wait for a concurrency slot or find the budget spent.
                turn.announceStart(i, d, stream);
            }
            Thread.ofVirtual().start(() -> {
                // Not interruptible as a whole: the call's own waits are (CancelScope#await).
                try {
                    future.complete(executor.execute(i, plan, turn, context));
                } catch (Throwable t) {
                    future.completeExceptionally(t);
                }
            });
            futures.add(future);
        }
        // Observations in call order, whatever finished first.
        for (int k = 0; k < concurrent.size(); k++) {
            int i = concurrent.get(k);
            ToolCall call = turn.calls().get(i);
            try {
                CompletableFuture<ToolResult> future = futures.get(k);
                results[i] = ctx.scope().await(future::get);
            } catch (InterruptedException e) {
                return false;
            } catch (ExecutionException e) {
                results[i] = ToolResult.failed(
                        call.id(), call.name(), FailureCode.INTERNAL_ERROR.failure(Errors.describe(e.getCause())));
            }
            afterCall(i, results[i], turn);
        }
        return true;
    }

    /**
     * Every call of the turn in the same words, none run: the model asked for exactly what it asked for
     * in the previous turns, {@code RunLimits.maxRepeatedToolCalls} times in a row. Each call gets its
     * events and its failed {@code execute_tool} span, so the trace shows where the agent stopped.
     */
    ToolResult[] refuseAll(Turn turn, Failure failure, Context context) {
        List<ToolCall> calls = turn.calls();
        ToolResult[] results = new ToolResult[calls.size()];
        for (ToolCall call : calls) {
            stream.emit(m -> new AgentEvent.ToolCallStart(
                    m, call.id(), call.name(), call.arguments(), Risk.AUTO, isAgent(call.name())));
        }
        for (int i = 0; i < results.length; i++) {
            ToolCall call = calls.get(i);
            CallPlan.Rejected r =
                    new CallPlan.Rejected(ToolResult.failed(call.id(), call.name(), failure), isAgent(call.name()));
            results[i] = executor.refuse(call, r, context);
            afterCall(i, results[i], turn);
        }
        return results;
    }

    private boolean isAgent(String name) {
        return ctx.rt().tree().contains(name) && tools.find(name) == null;
    }

    private CallPlan plan(ToolCall call, Map<String, Integer> subagentCounters) {
        String name = call.name();
        AgentContext c = ctx;
        Tool tool = tools.find(name);
        if (tool == null && ToolOutputs.READ_TOOL.equals(name)) {
            tool = readTool;
        }
        if (tool != null) {
            String notAnObject = notAnObject(call.arguments());
            if (notAnObject != null) {
                return reject(
                        call,
                        FailureCode.INVALID_ARGUMENTS,
                        "invalid arguments for " + name + ": " + notAnObject + "; send one JSON object matching " + name
                                + "'s parameter schema",
                        false);
            }
            List<String> errors = JsonSchemas.validate(tool.parametersSchema(), call.arguments());
            if (!errors.isEmpty()) {
                return reject(
                        call,
                        FailureCode.INVALID_ARGUMENTS,
                        "invalid arguments for " + name + ": " + String.join("; ", errors),
                        false);
            }
            Risk risk = c.rt().risks().riskOf(tool, c.runId());
            // A policy may raise a tool's risk for a run, never lower it.
            return new CallPlan.RunTool(tool, risk.compareTo(tool.risk()) < 0 ? tool.risk() : risk);
        }
        if (c.spec().workers().contains(name)) {
            if (!c.canDelegate()) {
                return reject(
                        call,
                        FailureCode.DEPTH_LIMIT,
                        "agent '" + c.agent() + "' may not delegate at depth " + c.depth() + " (max depth "
                                + c.run().maxDepth() + ")",
                        true);
            }
            if (c.ancestry().contains(name)) {
                return reject(
                        call,
                        FailureCode.DELEGATION_CYCLE,
                        "delegating to '" + name + "' would close a cycle: " + String.join(" -> ", c.ancestry())
                                + " -> " + name,
                        true);
            }
            String notAnObject = notAnObject(call.arguments());
            List<String> errors = notAnObject != null
                    ? List.of(notAnObject + "; send {\"task\": \"...\"} as one JSON object")
                    : JsonSchemas.validate(Runtime.DELEGATION_SCHEMA, call.arguments());
            if (!errors.isEmpty()) {
                return reject(
                        call,
                        FailureCode.INVALID_DELEGATION,
                        "malformed delegation to " + name + ": " + String.join("; ", errors),
                        true);
            }
            int number = subagentCounters.merge(name, 1, Integer::sum);
            return new CallPlan.Delegate(c.rt().tree().spec(name), c.sessionId() + "/" + name + "#" + number);
        }
        if (c.rt().tree().contains(name)) {
            return reject(
                    call,
                    FailureCode.UNKNOWN_WORKER,
                    "'" + name + "' is not a worker of agent '" + c.agent() + "'; available: " + definitionNames(),
                    true);
        }
        return reject(
                call,
                FailureCode.UNKNOWN_TOOL,
                "unknown tool or worker '" + name + "'; available: " + definitionNames(),
                false);
    }

    /**
     * Why arguments are not the JSON object every tool takes, or null when they are one. A model port
     * hands arguments that did not parse as JSON over as a string node holding the raw text.
     */
    static @Nullable String notAnObject(JsonNode arguments) {
        if (arguments.isObject()) {
            return null;
        }
        if (arguments.isString()) {
            try {
                JsonNode parsed = JsonSchemas.parse(arguments.stringValue());
                return parsed.isObject()
                        ? "the arguments are a JSON object inside a string, not the object itself"
                        : "the arguments are not a JSON object but " + kind(parsed);
            } catch (IllegalArgumentException e) {
                return "the arguments are not valid JSON (" + parseError(e.getMessage()) + ")";
            }
        }
        return "the arguments are not a JSON object but " + kind(arguments);
    }

    /** The parser's reason without its "invalid JSON" prefix and source location, which say nothing to a model. */
    private static String parseError(@Nullable String message) {
        String m = message == null ? "syntax error" : message.replaceFirst("^invalid JSON: ", "");
        for (String cut : List.of("\n", " (start marker", " at [Source")) {
            int at = m.indexOf(cut);
            if (at > 0) {
                m = m.substring(0, at);
            }
        }
        return m.strip();
    }

    private static String kind(JsonNode node) {
        if (node.isArray()) {
            return "an array";
        }
        if (node.isString()) {
            return "a string";
        }
        if (node.isNumber()) {
            return "a number";
        }
        if (node.isBoolean()) {
            return "a boolean";
        }
        return node.isNull() || node.isMissingNode()
                ? "null"
                : "a " + node.getNodeType().name().toLowerCase(Locale.ROOT);
    }

    private String definitionNames() {
        List<String> names = new ArrayList<>(definitions.size());
        for (ToolDefinition d : definitions) {
            names.add(d.name());
        }
        return String.join(", ", names);
    }

    private static CallPlan.Rejected reject(ToolCall call, FailureCode code, String message, boolean delegation) {
        return new CallPlan.Rejected(ToolResult.failed(call.id(), call.name(), code.failure(message)), delegation);
    }

    /** The parent-level events of a finished call, on the loop thread. */
    private void afterCall(int index, ToolResult result, Turn turn) {
        SubagentOutcome sub = turn.subagents()[index];
        if (sub != null && turn.startAnnounced()[index]) {
            long millis = sub.duration().toMillis();
            stream.emit(m -> new AgentEvent.SubagentFinished(
                    m, sub.callId(), sub.worker(), sub.sessionId(), sub.status(), sub.usage(), millis));
        }
        stream.emit(m -> new AgentEvent.ToolResultEvent(
                m, result.callId(), result.toolName(), result.status(), result.content(), result.failure()));
    }
}
