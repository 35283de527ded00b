package dev.cadre.agent.event;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.approval.ApprovalDecision;
import dev.cadre.agent.approval.ApprovalRequest;
import dev.cadre.agent.tool.Risk;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * One event of a session's stream. The main stream holds only parent-level events; a worker call
 * shows there as {@code tool_call_start}, {@code subagent_started}, {@code subagent_finished} and
 * {@code tool_result} (the last two in call order, emitted as the parent collects results), while
 * the subagent's own events carry its session id and parent id.
 */
public sealed interface AgentEvent {

    /** Run, session, parent session, sequence number, agent and time. */
    EventMeta meta();

    /** The wire name ({@code run_started}, {@code tool_result}, ...) used by SSE. */
    default String type() {
        return switch (this) {
            case RunStarted e -> "run_started";
            case TextDelta e -> "text_delta";
            case ToolCallStart e -> "tool_call_start";
            case ToolResultEvent e -> "tool_result";
            case SubagentStarted e -> "subagent_started";
            case SubagentFinished e -> "subagent_finished";
            case ApprovalRequested e -> "approval_requested";
            case ApprovalResolved e -> "approval_resolved";
            case Status e -> "status";
            case Done e -> "done";
            case Error e -> "error";
        };
    }

    /** A session began (for a subagent: its own stream's first event). */
    record RunStarted(EventMeta meta, String input) implements AgentEvent {}

    /**
     * Text the model produced in a turn. A streaming model's text arrives in {@code partial} pieces as
     * the provider sends them (live only: not stored, and they carry the sequence number of the event
     * that follows them), then once more whole, not partial, which is the event stored for the turn.
     */
    record TextDelta(EventMeta meta, String text, boolean partial) implements AgentEvent {
        /** The whole text of a turn. */
        public TextDelta(EventMeta meta, String text) {
            this(meta, text, false);
        }
    }

    /** A tool call is about to run (or wait for approval); {@code SUGGEST} calls are flagged by their risk. */
    record ToolCallStart(EventMeta meta, String callId, String tool, JsonNode arguments, Risk risk, boolean worker)
            implements AgentEvent {}

    /** A tool call ended. */
    record ToolResultEvent(
            EventMeta meta,
            String callId,
            String tool,
            OutcomeStatus status,
            String content,
            @Nullable Failure failure) implements AgentEvent {}

    /**
     * A worker call spawned a subagent with session {@code childSessionId}; under a concurrency cap
     * it may still wait for a slot, and it may find the tree budget spent (then
     * {@code subagent_finished} says {@code budget_exceeded} with no iterations).
     */
    record SubagentStarted(EventMeta meta, String callId, String worker, String childSessionId, String task)
            implements AgentEvent {}

    /** The subagent of a worker call ended. */
    record SubagentFinished(
            EventMeta meta,
            String callId,
            String worker,
            String childSessionId,
            OutcomeStatus status,
            TokenUsage usage,
            long durationMillis)
            implements AgentEvent {}

    /** A human was asked. */
    record ApprovalRequested(EventMeta meta, ApprovalRequest request) implements AgentEvent {}

    /** A human answered (or the request expired). */
    record ApprovalResolved(EventMeta meta, String callId, ApprovalDecision decision) implements AgentEvent {}

    /** Progress: the current step, e.g. {@code iteration 2} or {@code resumed}. */
    record Status(EventMeta meta, String message, int iteration) implements AgentEvent {}

    /** The session ended with a final answer. */
    record Done(EventMeta meta, String text, TokenUsage usage, int iterations) implements AgentEvent {}

    /** The session ended without a final answer. */
    record Error(EventMeta meta, OutcomeStatus status, Failure failure, TokenUsage usage, int iterations)
            implements AgentEvent {}
}
