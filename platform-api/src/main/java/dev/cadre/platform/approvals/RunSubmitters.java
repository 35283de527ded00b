package dev.cadre.platform.approvals;

/**
 * Who submitted a run, for the separation-of-duties check. The runs package provides it, so
 * approvals does not depend on runs (runs already depends on approvals).
 */
@FunctionalInterface
public interface RunSubmitters {

    /** The name of the key that submitted the run. */
    String submitterOf(String runId);
}
