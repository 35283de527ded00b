package dev.cadre.agent.workflow;

import java.util.Objects;

/** The standard result of a map-reduce worker (seed 003): one issue, where it is and what to do. */
public record Finding(
        String id,
        Severity severity,
        String category,
        String target,
        String description,
        String suggestion,
        double confidence) {
    public Finding {
        Objects.requireNonNull(severity, "severity");
        if (confidence < 0 || confidence > 1) {
            throw new IllegalArgumentException("finding confidence must be in [0, 1], was " + confidence);
        }
    }
}
