package dev.cadre.platform.tenancy;

import java.util.Optional;

/**
 * Whose objects a piece of work may see, resolved once per request from its caller and handed
 * explicitly to every store of team-owned data (never guessed from a thread). A request acts in
 * {@link One one team}; only the platform's own work (scheduling, retention, recovery after a
 * restart) and platform-wide admin views see {@link AllTeams all teams}, and say so at the call.
 */
public sealed interface TeamScope {

    /** The scope of one team. */
    static TeamScope of(TeamId team) {
        return new One(team);
    }

    /** The scope of the platform's own work, which spans teams; {@code why} documents the call. */
    static TeamScope allTeams(String why) {
        return new AllTeams(why);
    }

    /** Whether an object of {@code owner} is visible in this scope. */
    boolean includes(TeamId owner);

    /** The one team of this scope, or empty when it spans all teams. */
    Optional<TeamId> team();

    /** A request of one team: sees and makes that team's objects only. */
    record One(TeamId id) implements TeamScope {

        @Override
        public boolean includes(TeamId owner) {
            return id.equals(owner);
        }

        @Override
        public Optional<TeamId> team() {
            return Optional.of(id);
        }
    }

    /** The platform's own work across teams; {@code why} says which (for reading, not deciding). */
    record AllTeams(String why) implements TeamScope {

        @Override
        public boolean includes(TeamId owner) {
            return true;
        }

        @Override
        public Optional<TeamId> team() {
            return Optional.empty();
        }
    }
}
