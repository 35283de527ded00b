package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.Role;
import java.io.Serializable;
import java.util.regex.Pattern;

/** A person's membership: a team and their role in it, as the provider's groups grant it. */
public record TeamRole(String team, Role role) implements Serializable {

    // A team's name is a DNS-1123 label, as teams are named everywhere in Cadre.
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public TeamRole {
        if (team == null || !LABEL.matcher(team).matches()) {
            throw new IllegalArgumentException("team '" + team + "' is not a team name: use 1 to 63 of a-z, 0-9 and"
                    + " '-', starting and ending with a letter or digit");
        }
        if (role != Role.VIEWER && role != Role.OPERATOR && role != Role.ADMIN) {
            throw new IllegalArgumentException(
                    "role " + role + " is for integrations, not people:" + " map a group to viewer, operator or admin");
        }
    }

    @Override
    public String toString() {
        return team + ":" + role.name().toLowerCase(java.util.Locale.ROOT);
    }
}
