package dev.cadre.platform.a2a;

import dev.cadre.platform.a2a.A2aMethod.Dialect;
import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.runs.RunRecord;
import dev.cadre.platform.runs.RunStatus;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A run as an A2A task on the wire, in the dialect of the method the client called: 0.3 ({@code kind}
 * discriminators, lower-case states, {@code "user"}/{@code "agent"} roles) or 1.0 (member-named
 * unions, {@code TASK_STATE_*}, {@code ROLE_*}). The task id is the run id; the status message says
 * what the run produced or why it stopped; the final answer is the task's one text artifact.
 */
final class TaskWire {

    /** What a task is rendered from: the run, and its pending approvals when it waits for a human. */
    record Snapshot(RunRecord run, List<ApprovalRecord> pending) {}

    /** The prefix that marks a run's idempotency key as an A2A message id. */
    static final String MESSAGE_KEY_PREFIX = "a2a:";

    /** A run context that is an A2A context id rather than free text given over the REST API. */
    static final Pattern CONTEXT_ID = Pattern.compile("[A-Za-z0-9._:@/+=-]{1,200}");

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    // A2A 1.0 asks for UTC with millisecond precision; 0.3 clients parse it as well.
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private TaskWire() {}

    static String contextId(RunRecord run) {
        String c = run.context();
        // A run submitted over REST may carry a free-text context; such a run is its own context.
        return c != null && CONTEXT_ID.matcher(c).matches() ? c : run.id();
    }

    static String state(RunStatus status, Dialect dialect) {
        return dialect == Dialect.V0_3 ? status.wire() : "TASK_STATE_" + status.name();
    }

    static ObjectNode task(Snapshot s, Dialect dialect, @Nullable Integer historyLength, boolean includeArtifacts) {
        RunRecord run = s.run();
        ObjectNode task = NODES.objectNode();
        if (dialect == Dialect.V0_3) {
            task.put("kind", "task");
        }
        task.put("id", run.id());
        task.put("contextId", contextId(run));
        task.set("status", status(run, dialect, run.status(), statusText(s), statusTime(run)));
        if (includeArtifacts) {
            ObjectNode artifact = artifact(run, dialect);
            if (artifact != null) {
                task.putArray("artifacts").add(artifact);
            }
        }
        List<ObjectNode> history = new ArrayList<>();
        history.add(message(dialect, "user", userMessageId(run), run, A2aTasks.clientMessage(run.input())));
        if (run.status() == RunStatus.COMPLETED && run.result() != null) {
            history.add(message(dialect, "agent", run.id() + "-answer", run, run.result()));
        }
        int keep = historyLength == null ? history.size() : Math.min(historyLength, history.size());
        if (keep > 0) {
            ArrayNode h = task.putArray("history");
            history.subList(history.size() - keep, history.size()).forEach(h::add);
        }
        ObjectNode meta = task.putObject("metadata");
        meta.put("agent", run.agent());
        meta.put("createdAt", TIME.format(run.createdAt()));
        meta.put("lastModified", TIME.format(run.updatedAt()));
        meta.put("run", "/api/v1/runs/" + run.id());
        if (run.failureCategory() != null) {
            ObjectNode error = meta.putObject("error");
            error.put("category", run.failureCategory());
            error.put("code", run.failureCode());
            error.put("message", run.failureMessage());
        }
        if (!s.pending().isEmpty()) {
            ArrayNode approvals = meta.putArray("pendingApprovals");
            s.pending()
                    .forEach(a -> approvals
                            .addObject()
                            .put("id", a.id())
                            .put("tool", a.tool())
                            .put("what", a.what())
                            .put("decide", "/api/v1/approvals/" + a.id()));
        }
        return task;
    }

    static ObjectNode statusUpdate(
            RunRecord run, Dialect dialect, RunStatus state, String text, boolean last, Instant at) {
        ObjectNode event = NODES.objectNode();
        if (dialect == Dialect.V0_3) {
            event.put("kind", "status-update");
        }
        event.put("taskId", run.id());
        event.put("contextId", contextId(run));
        event.set("status", status(run, dialect, state, text, at));
        if (dialect == Dialect.V0_3) {
            // 1.0 dropped "final": the end of the stream says it.
            event.put("final", last);
        }
        return event;
    }

    static @Nullable ObjectNode artifactUpdate(RunRecord run, Dialect dialect) {
        ObjectNode artifact = artifact(run, dialect);
        if (artifact == null) {
            return null;
        }
        ObjectNode event = NODES.objectNode();
        if (dialect == Dialect.V0_3) {
            event.put("kind", "artifact-update");
        }
        event.put("taskId", run.id());
        event.put("contextId", contextId(run));
        event.set("artifact", artifact);
        event.put("append", false);
        event.put("lastChunk", true);
        return event;
    }

    /** A result of SendMessage: the task itself in 0.3, a {@code {"task": …}} union in 1.0. */
    static ObjectNode sendResult(ObjectNode task, Dialect dialect) {
        return dialect == Dialect.V0_3 ? task : wrap("task", task);
    }

    /** One item of a stream: the event itself in 0.3, a StreamResponse union member in 1.0. */
    static ObjectNode streamItem(String member, ObjectNode item, Dialect dialect) {
        return dialect == Dialect.V0_3 ? item : wrap(member, item);
    }

    private static ObjectNode wrap(String member, ObjectNode value) {
        ObjectNode o = NODES.objectNode();
        o.set(member, value);
        return o;
    }

    static String statusText(Snapshot s) {
        RunRecord run = s.run();
        return switch (run.status()) {
            case SUBMITTED -> "Accepted; queued for agent '" + run.agent() + "'.";
            case WORKING -> "Agent '" + run.agent() + "' is working.";
            case INPUT_REQUIRED -> waitingText(run, s.pending());
            case COMPLETED -> run.result() == null || run.result().isBlank() ? "Completed." : run.result();
            case FAILED, CANCELED, REJECTED -> failureText(run);
        };
    }

    static String waitingText(RunRecord run, List<ApprovalRecord> pending) {
        if (pending.isEmpty()) {
            return "Waiting for a human decision: see GET /api/v1/approvals?status=pending&runId=" + run.id();
        }
        StringBuilder b = new StringBuilder("Waiting for a human to approve");
        for (ApprovalRecord a : pending) {
            b.append(pending.size() > 1 ? "\n- " : ": ")
                    .append(a.what() == null || a.what().isBlank() ? "tool " + a.tool() : a.what());
            if (a.why() != null && !a.why().isBlank()) {
                b.append(" (why: ").append(a.why()).append(')');
            }
            b.append(" [approval ")
                    .append(a.id())
                    .append(": POST /api/v1/approvals/")
                    .append(a.id())
                    .append("/approve or /reject]");
        }
        return b.toString();
    }

    static String failureText(RunRecord run) {
        if (run.failureCategory() == null && run.failureMessage() == null) {
            return "Run " + run.status().wire() + ".";
        }
        StringBuilder b = new StringBuilder();
        if (run.failureCategory() != null) {
            b.append(run.failureCategory());
            if (run.failureCode() != null) {
                b.append(" (").append(run.failureCode()).append(')');
            }
            b.append(": ");
        }
        b.append(run.failureMessage() == null ? run.status().wire() : run.failureMessage());
        return b.toString();
    }

    private static Instant statusTime(RunRecord run) {
        return run.finishedAt() != null ? run.finishedAt() : run.updatedAt();
    }

    private static ObjectNode status(RunRecord run, Dialect dialect, RunStatus state, String text, Instant at) {
        ObjectNode status = NODES.objectNode();
        status.put("state", state(state, dialect));
        status.set("message", message(dialect, "agent", run.id() + "-status-" + at.toEpochMilli(), run, text));
        status.put("timestamp", TIME.format(at));
        return status;
    }

    private static @Nullable ObjectNode artifact(RunRecord run, Dialect dialect) {
        if (run.status() != RunStatus.COMPLETED
                || run.result() == null
                || run.result().isBlank()) {
            return null;
        }
        ObjectNode artifact = NODES.objectNode();
        artifact.put("artifactId", run.id() + "-answer");
        artifact.put("name", "answer");
        artifact.put("description", "The final answer of agent '" + run.agent() + "'");
        artifact.putArray("parts").add(textPart(dialect, run.result()));
        return artifact;
    }

    private static ObjectNode message(Dialect dialect, String role, String messageId, RunRecord run, String text) {
        ObjectNode m = NODES.objectNode();
        if (dialect == Dialect.V0_3) {
            m.put("kind", "message");
            m.put("role", role);
        } else {
            m.put("role", role.equals("user") ? "ROLE_USER" : "ROLE_AGENT");
        }
        m.put("messageId", messageId);
        m.put("taskId", run.id());
        m.put("contextId", contextId(run));
        m.putArray("parts").add(textPart(dialect, text));
        return m;
    }

    private static ObjectNode textPart(Dialect dialect, String text) {
        ObjectNode part = NODES.objectNode();
        if (dialect == Dialect.V0_3) {
            part.put("kind", "text");
            part.put("text", text);
        } else {
            part.put("text", text);
            part.put("mediaType", "text/plain");
        }
        return part;
    }

    private static String userMessageId(RunRecord run) {
        String key = run.idempotencyKey();
        return key != null && key.startsWith(MESSAGE_KEY_PREFIX)
                ? key.substring(MESSAGE_KEY_PREFIX.length())
                : run.id() + "-input";
    }
}
