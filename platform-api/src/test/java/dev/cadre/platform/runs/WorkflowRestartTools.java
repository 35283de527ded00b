package dev.cadre.platform.runs;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.Tools;
import dev.cadre.platform.agents.ToolProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The tools of {@link RestartIT}'s workflow steps: {@code record_effect}, a side effect (journalled)
 * that records every real execution, and {@code wait_for_release}, which records every call and
 * blocks while {@link #GATE} is closed, so a step can be caught mid-way by the "crash". The records
 * are static on purpose: they must outlive a Spring context to prove "never twice" across a restart.
 */
@TestConfiguration(proxyBeanMethods = false)
class WorkflowRestartTools {

    /** Every execution of record_effect: {@code <session id> <what>}. */
    static final List<String> EFFECTS = new CopyOnWriteArrayList<>();

    /** Every call of wait_for_release: the calling session's id. */
    static final List<String> WAITS = new CopyOnWriteArrayList<>();

    /** While set and not counted down, wait_for_release blocks on it. */
    static final AtomicReference<CountDownLatch> GATE = new AtomicReference<>();

    @Bean
    ToolProvider gateAndEffectTools() {
        Tool effect = Tools.of(
                "record_effect",
                "Records one side effect. Test tool.",
                "{\"type\":\"object\",\"properties\":{\"what\":{\"type\":\"string\"}},\"required\":[\"what\"]}",
                Risk.SUGGEST,
                (args, ctx) -> {
                    EFFECTS.add(ctx.sessionId() + " " + args.get("what").asString());
                    return "effect " + args.get("what").asString();
                });
        Tool gate = Tools.of(
                "wait_for_release",
                "Waits until the test releases it. Test tool.",
                "{\"type\":\"object\"}",
                Risk.AUTO,
                (args, ctx) -> {
                    WAITS.add(ctx.sessionId());
                    CountDownLatch latch = GATE.get();
                    if (latch != null) {
                        latch.await();
                    }
                    return "released";
                });
        return () -> List.of(effect, gate);
    }
}
