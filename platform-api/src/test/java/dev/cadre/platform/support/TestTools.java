package dev.cadre.platform.support;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.Tools;
import dev.cadre.platform.agents.ToolProvider;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Side-effecting tools for tests: {@code restart_service} needs approval and records every real
 * execution, so tests can prove an action ran exactly once (or never). The record is static on
 * purpose: it must outlive a Spring context to check "never twice" across a restart.
 */
@TestConfiguration(proxyBeanMethods = false)
public class TestTools {

    /** Every execution of restart_service: its arguments as JSON text. */
    public static final List<String> RESTARTS = new CopyOnWriteArrayList<>();

    /** When set, restart_service blocks on it after recording (to crash "during" the action). */
    public static final AtomicReference<CountDownLatch> HOLD = new AtomicReference<>();

    public static final ConcurrentHashMap<String, Integer> CALLS = new ConcurrentHashMap<>();

    @Bean
    ToolProvider sideEffectingTestTools() {
        Tool restart = Tools.of(
                "restart_service",
                "Restart a service on a host. Needs a human's approval.",
                "{\"type\":\"object\",\"properties\":{\"service\":{\"type\":\"string\"},\"host\":{\"type\":\"string\"}},"
                        + "\"required\":[\"service\"],\"additionalProperties\":false}",
                Risk.APPROVE,
                (args, ctx) -> {
                    RESTARTS.add(ctx.runId() + " " + args);
                    CountDownLatch hold = HOLD.get();
                    if (hold != null) {
                        hold.await();
                    }
                    return "restarted " + args.get("service").asString();
                });
        Tool broken = Tools.of(
                "broken_probe",
                "A probe that always fails. Test tool.",
                "{\"type\":\"object\",\"properties\":{\"target\":{\"type\":\"string\"}}}",
                Risk.AUTO,
                (args, ctx) -> {
                    throw new IllegalStateException(
                            "probe exploded on " + args.path("target").asString());
                });
        Tool echo = Tools.of(
                "echo",
                "Returns its arguments. Test tool.",
                "{\"type\":\"object\"}",
                Risk.AUTO,
                (args, ctx) -> args.toString());
        // Tool output budgets: a long log whose line i is bigOutputLine(i), as many lines as asked.
        Tool bigOutput = Tools.of(
                "big_output",
                "Returns a long log. Test tool.",
                "{\"type\":\"object\",\"properties\":{\"lines\":{\"type\":\"integer\"}}}",
                Risk.AUTO,
                (args, ctx) -> {
                    int lines = args.path("lines").asInt(1000);
                    StringBuilder out = new StringBuilder(lines * 64);
                    for (int i = 0; i < lines; i++) {
                        out.append(bigOutputLine(i)).append('\n');
                    }
                    return out.toString();
                });
        return () -> List.of(restart, broken, echo, bigOutput);
    }

    /** Line {@code i} of big_output's log: every 100th an error, line 7 holds a password. */
    public static String bigOutputLine(int i) {
        if (i == 7) {
            return "0000007 WARN connecting with password=hunter2";
        }
        return String.format("%07d %s request served path=/api/v1/items", i, i % 100 == 99 ? "ERROR" : "INFO");
    }
}
