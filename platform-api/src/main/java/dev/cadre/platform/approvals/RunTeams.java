package dev.cadre.platform.approvals;

import dev.cadre.platform.tenancy.TeamId;

/**
 * The team a run belongs to, whose approvals are that team's too. The runs package provides it, so
 * approvals does not depend on runs (runs already depends on approvals).
 */
@FunctionalInterface
public interface RunTeams {

    /** The team of run {@code runId}; {@code default} for a run that is not stored (none asks for approval). */
    TeamId teamOf(String runId);
}
