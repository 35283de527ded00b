package dev.cadre.platform.evals;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A local OpenAI-compatible chat-completions server acting as a deliberately imperfect router, so
 * that the harness has real misroutes to count: "cpu" and "disk" go where they should, "memory"
 * goes to the CPU worker, "ghost" calls a worker that does not exist, "everything" calls all three
 * in one turn, "storage" alternates between the disk and the CPU worker (inconsistent), and "swap"
 * goes to the memory worker, the right one, with a task about the disk (the wrong content). Once a
 * worker's result is back, it answers with text. Speaks the non-streaming and streaming wire formats.
 */
final class RouterServer implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpServer server;
    private final AtomicInteger storage = new AtomicInteger();
    private final AtomicInteger ids = new AtomicInteger();

    RouterServer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    private void handle(HttpExchange x) throws IOException {
        JsonNode request = JSON.readTree(x.getRequestBody().readAllBytes());
        JsonNode messages = request.path("messages");
        List<String> workers = new ArrayList<>();
        String text = null;
        String task = null;
        if ("tool".equals(messages.get(messages.size() - 1).path("role").asString())) {
            text = "Routed and done: "
                    + messages.get(messages.size() - 1).path("content").asString();
        } else {
            String user = "";
            for (JsonNode m : messages) {
                if ("user".equals(m.path("role").asString())) {
                    user = m.path("content").asString("").toLowerCase(Locale.ROOT);
                }
            }
            if (user.contains("swap")) {
                workers.add("memory-worker");
                task = "check the disk space"; // the right worker, told the wrong thing
            } else if (user.contains("everything")) {
                workers.addAll(List.of("cpu-worker", "memory-worker", "disk-worker"));
            } else if (user.contains("memory")) {
                workers.add("cpu-worker"); // the deliberate mistake
            } else if (user.contains("ghost")) {
                workers.add("ghost-worker"); // no such worker
            } else if (user.contains("storage")) {
                workers.add(storage.getAndIncrement() % 2 == 0 ? "disk-worker" : "cpu-worker");
            } else if (user.contains("disk")) {
                workers.add("disk-worker");
            } else {
                workers.add("cpu-worker");
            }
        }
        String id = "chatcmpl-" + ids.incrementAndGet();
        boolean stream = request.path("stream").asBoolean(false);
        byte[] body = (stream ? streamed(id, workers, task, text) : whole(id, workers, task, text))
                .getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", stream ? "text/event-stream" : "application/json");
        x.sendResponseHeaders(200, body.length);
        x.getResponseBody().write(body);
        x.close();
    }

    private static ArrayNode calls(List<String> workers, String task, boolean indexed) {
        ArrayNode calls = JSON.createArrayNode();
        for (int i = 0; i < workers.size(); i++) {
            ObjectNode c = calls.addObject();
            if (indexed) {
                c.put("index", i);
            }
            c.put("id", "call_" + i);
            c.put("type", "function");
            c.putObject("function")
                    .put("name", workers.get(i))
                    .put(
                            "arguments",
                            JSON.createObjectNode()
                                    .put("task", task != null ? task : "check " + workers.get(i))
                                    .toString());
        }
        return calls;
    }

    private static String whole(String id, List<String> workers, String task, String text) {
        ObjectNode r = JSON.createObjectNode();
        r.put("id", id)
                .put("object", "chat.completion")
                .put("created", 1764720000)
                .put("model", "test-router");
        ObjectNode choice = r.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message").put("role", "assistant");
        if (text != null) {
            message.put("content", text);
        } else {
            message.putNull("content");
            message.set("tool_calls", calls(workers, task, false));
        }
        choice.put("finish_reason", text != null ? "stop" : "tool_calls");
        r.putObject("usage")
                .put("prompt_tokens", 100)
                .put("completion_tokens", 10)
                .put("total_tokens", 110);
        return r.toString();
    }

    private static String streamed(String id, List<String> workers, String task, String text) {
        StringBuilder out = new StringBuilder();
        ObjectNode chunk = JSON.createObjectNode();
        chunk.put("id", id)
                .put("object", "chat.completion.chunk")
                .put("created", 1764720000)
                .put("model", "test-router");
        ObjectNode choice = chunk.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode delta = choice.putObject("delta").put("role", "assistant");
        if (text != null) {
            delta.put("content", text);
        } else {
            delta.set("tool_calls", calls(workers, task, true));
        }
        out.append("data: ").append(chunk).append("\n\n");
        ObjectNode end = chunk.deepCopy();
        ObjectNode endChoice = (ObjectNode) end.path("choices").get(0);
        endChoice.putObject("delta");
        endChoice.put("finish_reason", text != null ? "stop" : "tool_calls");
        out.append("data: ").append(end).append("\n\n");
        ObjectNode usage = chunk.deepCopy();
        usage.putArray("choices");
        usage.putObject("usage")
                .put("prompt_tokens", 100)
                .put("completion_tokens", 10)
                .put("total_tokens", 110);
        out.append("data: ").append(usage).append("\n\n");
        out.append("data: [DONE]\n\n");
        return out.toString();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
