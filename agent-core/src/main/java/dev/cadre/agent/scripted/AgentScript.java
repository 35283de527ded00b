package dev.cadre.agent.scripted;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The script of one agent: variants chosen by the first one whose {@code when} text occurs in the
 * agent's task (a variant without {@code when} matches anything), a default latency per turn, and
 * what happens when a session asks for more turns than its variant has.
 *
 * @param whenExhausted null: fail with {@code COMMUNICATION_ERROR} ({@code script_exhausted});
 *     otherwise this text (a template) is the final answer
 */
public record AgentScript(
        List<Variant> variants, Duration latency, @Nullable String whenExhausted) {

    public AgentScript {
        variants = List.copyOf(variants);
    }

    /** A script with one variant, no latency, failing when exhausted. */
    public static AgentScript of(ScriptedTurn... turns) {
        return new AgentScript(List.of(new Variant(null, List.of(turns))), Duration.ZERO, null);
    }

    /** This script with a default latency per turn. */
    public AgentScript withLatency(Duration value) {
        return new AgentScript(variants, value, whenExhausted);
    }

    /** This script answering {@code text} when it runs out of turns. */
    public AgentScript whenExhausted(String text) {
        return new AgentScript(variants, latency, text);
    }

    /** This script with another variant tried after the existing ones. */
    public AgentScript orWhen(String taskContains, ScriptedTurn... turns) {
        List<Variant> all = new java.util.ArrayList<>(variants);
        // Specific variants are tried before the catch-all one, whatever order they were added in.
        int at = all.size();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).when() == null) {
                at = i;
                break;
            }
        }
        all.add(at, new Variant(taskContains, List.of(turns)));
        return new AgentScript(all, latency, whenExhausted);
    }

    /** Turns for tasks containing {@code when} (or any task when null). */
    public record Variant(@Nullable String when, List<ScriptedTurn> turns) {
        public Variant {
            turns = List.copyOf(turns);
        }
    }
}
