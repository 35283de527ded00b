package dev.cadre.platform.incidents;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * How a remediation ended once verified: only {@link Verdict#SUCCEEDED} may resolve an incident;
 * any other verdict keeps it open and escalates it.
 */
public record RemediationOutcome(
        Verdict verdict,
        String summary,
        @Nullable JsonNode evidence,
        @Nullable String approver) {

    /** The verified outcome of an action. */
    public enum Verdict {
        SUCCEEDED,
        FAILED,
        TIMED_OUT,
        UNCHANGED,
        WORSE
    }

    public RemediationOutcome {
        if (verdict == null) {
            throw new IllegalArgumentException("a remediation outcome needs a verdict");
        }
        summary = summary == null ? "" : summary;
    }
}
