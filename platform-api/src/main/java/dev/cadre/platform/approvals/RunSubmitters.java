package dev.cadre.platform.approvals;

import dev.cadre.platform.security.Actor;

/**
 * Who submitted a run, for the separation-of-duties check. The runs package provides it, so
 * approvals does not depend on runs (runs already depends on approvals).
 */
@FunctionalInterface
public interface RunSubmitters {

    /** The key that submitted the run (its id is what counts), or the platform actor that did. */
    Actor submitterOf(String runId);
}
