package dev.cadre.platform.a2a;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JSON-RPC error to answer with: one of the codes of JSON-RPC 2.0 or of A2A, a message a person can
 * act on, and optional structured data (e.g. which param is at fault). Never carries a stack trace.
 */
final class JsonRpcException extends RuntimeException {

    static final int PARSE_ERROR = -32700;
    static final int INVALID_REQUEST = -32600;
    static final int METHOD_NOT_FOUND = -32601;
    static final int INVALID_PARAMS = -32602;
    static final int INTERNAL_ERROR = -32603;
    static final int TASK_NOT_FOUND = -32001;
    static final int TASK_NOT_CANCELABLE = -32002;
    static final int PUSH_NOTIFICATION_NOT_SUPPORTED = -32003;
    static final int UNSUPPORTED_OPERATION = -32004;
    static final int CONTENT_TYPE_NOT_SUPPORTED = -32005;
    static final int EXTENDED_CARD_NOT_CONFIGURED = -32007;

    private final int code;
    private final Map<String, Object> data = new LinkedHashMap<>();

    JsonRpcException(int code, String message) {
        // No stack trace: these are answers, not failures of the platform.
        super(message, null, false, false);
        this.code = code;
    }

    static JsonRpcException invalidParams(String param, String detail) {
        return new JsonRpcException(INVALID_PARAMS, "Invalid params: " + param + ": " + detail).with("param", param);
    }

    static JsonRpcException taskNotFound(String id) {
        return new JsonRpcException(TASK_NOT_FOUND, "Task not found: '" + id + "' does not exist").with("taskId", id);
    }

    JsonRpcException with(String key, Object value) {
        data.put(key, value);
        return this;
    }

    int code() {
        return code;
    }

    Map<String, Object> data() {
        return data;
    }
}
