package dev.cadre.platform.a2a;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The JSON-RPC methods this server answers, under their A2A 1.0 names and their 0.3 names. The name a
 * client calls decides the wire dialect of the answer (0.3: {@code kind} discriminators and lower-case
 * states; 1.0: member-named unions and {@code TASK_STATE_*}), so clients of either version understand it.
 */
enum A2aMethod {
    SEND(false),
    STREAM(true),
    GET(false),
    LIST(false),
    CANCEL(false),
    SUBSCRIBE(true);

    /** The protocol version whose shapes an answer uses. */
    enum Dialect {
        V0_3,
        V1_0
    }

    /** A resolved method name. */
    record Call(A2aMethod method, Dialect dialect) {}

    private static final Map<String, Call> BY_NAME = Map.ofEntries(
            Map.entry("SendMessage", new Call(SEND, Dialect.V1_0)),
            Map.entry("SendStreamingMessage", new Call(STREAM, Dialect.V1_0)),
            Map.entry("GetTask", new Call(GET, Dialect.V1_0)),
            Map.entry("ListTasks", new Call(LIST, Dialect.V1_0)),
            Map.entry("CancelTask", new Call(CANCEL, Dialect.V1_0)),
            Map.entry("SubscribeToTask", new Call(SUBSCRIBE, Dialect.V1_0)),
            Map.entry("message/send", new Call(SEND, Dialect.V0_3)),
            Map.entry("message/stream", new Call(STREAM, Dialect.V0_3)),
            Map.entry("tasks/get", new Call(GET, Dialect.V0_3)),
            Map.entry("tasks/cancel", new Call(CANCEL, Dialect.V0_3)),
            Map.entry("tasks/resubscribe", new Call(SUBSCRIBE, Dialect.V0_3)));

    private final boolean streaming;

    A2aMethod(boolean streaming) {
        this.streaming = streaming;
    }

    boolean streaming() {
        return streaming;
    }

    static @Nullable Call resolve(String name) {
        return BY_NAME.get(name);
    }

    /**
     * Methods A2A defines that Cadre deliberately does not offer: answered with their specific A2A
     * error rather than "method not found", so a client learns it is a capability question.
     */
    static @Nullable JsonRpcException unsupported(String name) {
        if (name.startsWith("tasks/pushNotificationConfig/")
                || name.endsWith("PushNotificationConfig")
                || name.endsWith("PushNotificationConfigs")) {
            return new JsonRpcException(
                    JsonRpcException.PUSH_NOTIFICATION_NOT_SUPPORTED,
                    "Push notifications are not supported: follow a task with SendStreamingMessage or SubscribeToTask, or poll GetTask");
        }
        if (name.equals("agent/getAuthenticatedExtendedCard") || name.equals("GetExtendedAgentCard")) {
            return new JsonRpcException(
                    JsonRpcException.EXTENDED_CARD_NOT_CONFIGURED,
                    "No extended agent card: the public card at /.well-known/agent-card.json is complete");
        }
        if (name.equals("tasks/list")) {
            return new JsonRpcException(
                            JsonRpcException.METHOD_NOT_FOUND,
                            "Method not found: 'tasks/list'; use ListTasks (A2A 1.0)")
                    .with("method", name);
        }
        return null;
    }
}
