package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.Role;
import dev.cadre.platform.tenancy.TeamId;
import java.io.Serializable;

/** A person's membership: a team and their role in it, as the provider's groups grant it. */
public record TeamRole(String team, Role role) implements Serializable {

    public TeamRole {
        new TeamId(team); // a team's name is a DNS-1123 label; this says so when it is not
        if (role != Role.VIEWER && role != Role.OPERATOR && role != Role.ADMIN) {
            throw new IllegalArgumentException(
                    "role " + role + " is for integrations, not people:" + " map a group to viewer, operator or admin");
        }
    }

    /** The team as the platform's value. */
    public TeamId teamId() {
        return new TeamId(team);
    }

    @Override
    public String toString() {
        return team + ":" + role.name().toLowerCase(java.util.Locale.ROOT);
    }
}
