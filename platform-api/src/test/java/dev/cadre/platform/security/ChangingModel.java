package dev.cadre.platform.security;

import dev.cadre.agent.TokenUsage;
import dev.cadre.agent.model.Message;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelResponse;
import dev.cadre.agent.model.ToolCall;
import dev.cadre.agent.model.ToolResultMessage;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.Tools;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.ToolProvider;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * A model whose next tool call the test sets ({@link #NEXT}), served as provider {@code changing}: it
 * stands for a real model that, re-run after a restart, picks another tool or other arguments at the
 * same position. It asks for {@code NEXT} until the conversation holds a tool result, then answers
 * with that result. Also {@code drain_host}, a second {@code APPROVE} tool that records every run.
 * Static on purpose, like {@code TestTools}: both must outlive a Spring context.
 */
@TestConfiguration(proxyBeanMethods = false)
public class ChangingModel {

    /** The call the model makes now (name and arguments). */
    public static final AtomicReference<ToolCall> NEXT = new AtomicReference<>();

    /** Every execution of drain_host: run id and arguments. */
    public static final List<String> DRAINS = new CopyOnWriteArrayList<>();

    @Bean
    @Primary
    AgentCatalog.ProviderModels changingModels() {
        ModelPort port = request -> {
            List<Message> messages = request.messages();
            if (!messages.isEmpty() && messages.getLast() instanceof ToolResultMessage result) {
                return new ModelResponse("Outcome: " + result.content(), List.of(), new TokenUsage(10, 5));
            }
            ToolCall next = NEXT.get();
            return new ModelResponse(
                    null, List.of(new ToolCall("c1", next.name(), next.arguments())), new TokenUsage(10, 5));
        };
        return new AgentCatalog.ProviderModels() {
            @Override
            public Optional<ModelPort> model(ModelRef ref) {
                return ref.provider().equals("changing") ? Optional.of(port) : Optional.empty();
            }

            @Override
            public List<String> providers() {
                return List.of("scripted", "changing");
            }
        };
    }

    @Bean
    ToolProvider drainTool() {
        Tool drain = Tools.of(
                "drain_host",
                "Take a host out of the load balancer. Needs a human's approval.",
                "{\"type\":\"object\",\"properties\":{\"host\":{\"type\":\"string\"}},"
                        + "\"required\":[\"host\"],\"additionalProperties\":false}",
                Risk.APPROVE,
                (args, ctx) -> {
                    DRAINS.add(ctx.runId() + " " + args);
                    return "drained " + args.get("host").asString();
                });
        return () -> List.of(drain);
    }
}
