package dev.cadre.agent.workflow;

import java.util.List;

/** What one step hands to the next (seed 003's baton protocol). */
public record Baton(List<String> decisions, List<String> reasons, List<String> constraints, String nextFocus) {

    public Baton {
        decisions = List.copyOf(decisions);
        reasons = List.copyOf(reasons);
        constraints = List.copyOf(constraints);
    }

    /** The baton as the next step reads it. */
    public String render() {
        StringBuilder out = new StringBuilder();
        section(out, "Decisions", decisions);
        section(out, "Reasons", reasons);
        section(out, "Constraints/assumptions", constraints);
        if (!nextFocus.isBlank()) {
            out.append("Next focus: ").append(nextFocus).append('\n');
        }
        return out.toString().strip();
    }

    private static void section(StringBuilder out, String title, List<String> items) {
        if (items.isEmpty()) {
            return;
        }
        out.append(title).append(":\n");
        for (String item : items) {
            out.append("- ").append(item).append('\n');
        }
    }
}
