package dev.cadre.agent.bench;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agentic.Agent;
import dev.langchain4j.agentic.AgenticServices;
import dev.langchain4j.agentic.UntypedAgent;
import dev.langchain4j.agentic.scope.AgenticScope;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.service.V;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * LangChain4j's side of the orchestration comparison, on its real agentic API
 * ({@code langchain4j-agentic}): N sub-agents built with {@link AgenticServices#agentBuilder}, each an
 * AI service with the {@code read_file} tool and a {@link ChatModel} that sleeps the latency and
 * answers from a fixed script; parallel = {@link AgenticServices#parallelBuilder()} over them
 * (default executor: LangChain4j's virtual-thread-per-task executor on JDK 21+), serial =
 * {@link AgenticServices#sequenceBuilder()} over the same sub-agents. Both aggregate with the same
 * {@code output} function: every worker's answer as a {@code worker_i: answer} line in worker order.
 *
 * <p>Compiled only by the {@code bench} profile (src/bench/java), so LangChain4j never enters the
 * library's normal build. Loaded by {@link AgentCoreBenchmark} by name.
 */
public final class LangChain4jWorkload implements ParallelWorkload {

    private final int n;
    private final UntypedAgent serial;
    private final UntypedAgent parallel;

    /** The sub-agent's typed interface; its user message is set per instance by the builder. */
    public interface ModuleWorker {
        @Agent(description = "Edits one module.")
        String edit(@V("request") String request);
    }

    /** The tool every worker calls, like Cadre's {@code read_file}. */
    public static final class ReadFile {
        @Tool(name = "read_file", value = "Reads a file.")
        public String readFile(@P("path") String path) {
            return TOOL_RESULT;
        }
    }

    /**
     * The fake model: the turn is the number of AI messages already in the request (as Cadre's
     * ScriptedModel counts assistant messages); before the last turn it asks for {@code read_file},
     * on the last it answers {@code edited: <the tool result>}.
     */
    static final class ScriptedChatModel implements ChatModel {
        private final Duration latency;
        private final int turns;

        ScriptedChatModel(Duration latency, int turns) {
            this.latency = latency;
            this.turns = turns;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            if (!latency.isZero()) {
                try {
                    Thread.sleep(latency);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
            }
            List<ChatMessage> messages = request.messages();
            int turn = 0;
            String lastResult = null;
            for (ChatMessage m : messages) {
                if (m instanceof AiMessage) {
                    turn++;
                } else if (m instanceof ToolExecutionResultMessage r) {
                    lastResult = r.text();
                }
            }
            if (turn < turns - 1) {
                return ChatResponse.builder()
                        .aiMessage(AiMessage.from(ToolExecutionRequest.builder()
                                .id("call_" + (turn + 1) + "_1")
                                .name("read_file")
                                .arguments("{\"path\":\"module.py\"}")
                                .build()))
                        .finishReason(FinishReason.TOOL_EXECUTION)
                        .build();
            }
            return ChatResponse.builder()
                    .aiMessage(AiMessage.from(lastResult == null ? WORKER_ANSWER : "edited: " + lastResult))
                    .finishReason(FinishReason.STOP)
                    .build();
        }
    }

    private LangChain4jWorkload(int n, Duration latency, int turns) {
        this.n = n;
        ChatModel model = new ScriptedChatModel(latency, turns);
        ReadFile tool = new ReadFile();
        List<ModuleWorker> workers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            workers.add(AgenticServices.agentBuilder(ModuleWorker.class)
                    .name("worker_" + i)
                    .description("Edits one module.")
                    .systemMessage("You edit one module.")
                    .userMessage("edit module " + i + " ({{request}})")
                    .chatModel(model)
                    .tools(tool)
                    .outputKey("result_" + i)
                    .build());
        }
        Function<AgenticScope, Object> aggregate = scope -> {
            StringBuilder out = new StringBuilder(n * 32);
            for (int i = 0; i < n; i++) {
                out.append("worker_")
                        .append(i)
                        .append(": ")
                        .append(scope.readState("result_" + i))
                        .append('\n');
            }
            return out.toString();
        };
        this.serial = AgenticServices.sequenceBuilder()
                .subAgents(workers.toArray())
                .output(aggregate)
                .build();
        this.parallel = AgenticServices.parallelBuilder()
                .subAgents(workers.toArray())
                .output(aggregate)
                .build();
    }

    /** Called by name from {@link AgentCoreBenchmark}. */
    public static ParallelWorkload create(int n, Duration latency, int turns) {
        return new LangChain4jWorkload(n, latency, turns);
    }

    @Override
    public String run(boolean inParallel) {
        Object result = (inParallel ? parallel : serial).invoke(Map.of("request", "edit the modules"));
        return ParallelWorkload.checked(String.valueOf(result), n);
    }
}
