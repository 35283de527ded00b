package dev.cadre.agent.scripted;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The script of one agent: variants chosen by the first one that matches the agent's task (a
 * variant without a condition matches anything), a default latency per turn, and what happens when
 * a session asks for more turns than its variant has. A condition is either a text that occurs in
 * the task outside its fenced data ({@link dev.cadre.agent.model.UntrustedText}), or a field of the
 * task's structured data with a given value ({@link FieldIs}): decisions made on data should use the
 * latter, so free text quoted in the data cannot steer them.
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

    /** This script with a variant for tasks whose structured data has {@code pointer} = {@code value}. */
    public AgentScript orWhenField(String pointer, String value, ScriptedTurn... turns) {
        List<Variant> all = new java.util.ArrayList<>(variants);
        int at = all.size();
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).when() == null && all.get(i).whenField() == null) {
                at = i;
                break;
            }
        }
        all.add(at, new Variant(null, new FieldIs(pointer, value), List.of(turns)));
        return new AgentScript(all, latency, whenExhausted);
    }

    /**
     * A structured condition: the JSON value at {@code pointer} (RFC 6901, e.g. {@code /remediation})
     * of the task's data, as text, equals {@code value}. The task's data is the JSON value the task
     * starts with, else the JSON after its last {@code Context:} line (how runs pass context).
     */
    public record FieldIs(String pointer, String value) {
        public FieldIs {
            if (!pointer.startsWith("/")) {
                throw new IllegalArgumentException(
                        "field '" + pointer + "' must be a JSON pointer such as /remediation");
            }
        }
    }

    /**
     * Turns for tasks containing {@code when} outside fenced data, or whose data has {@code whenField};
     * any task when both are null.
     */
    public record Variant(@Nullable String when, @Nullable FieldIs whenField, List<ScriptedTurn> turns) {
        public Variant {
            turns = List.copyOf(turns);
            if (when != null && whenField != null) {
                throw new IllegalArgumentException("a variant has either a text or a field condition, not both");
            }
        }

        /** A variant with a text condition (or none). */
        public Variant(@Nullable String when, List<ScriptedTurn> turns) {
            this(when, null, turns);
        }
    }
}
