package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.Role;
import dev.cadre.platform.tenancy.TeamId;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A person as the identity provider vouches for them: their subject at the issuer, a name to
 * show, and the teams their groups grant. {@code id} is derived from issuer and subject, so the
 * same person is the same actor in every session and with every token — separation of duties and
 * run ownership compare it — and it never equals an API key's id (a name-based UUID, where keys
 * have random ones).
 */
record Person(String id, String issuer, String subject, String name, GroupMapping.Memberships memberships)
        implements Serializable {

    /** The team a platform admin acts in when no group names one. */
    static final String DEFAULT_TEAM = TeamId.DEFAULT.name();

    static Person of(String issuer, String subject, @Nullable String name, GroupMapping.Memberships memberships) {
        String id = UUID.nameUUIDFromBytes((issuer + "\n" + subject).getBytes(StandardCharsets.UTF_8))
                .toString();
        return new Person(id, issuer, subject, name == null || name.isBlank() ? subject : name, memberships);
    }

    /** The teams this person may act in, with their role in each; a platform admin is admin in every one listed. */
    List<TeamRole> teams() {
        if (!memberships.platformAdmin()) {
            return memberships.teams();
        }
        List<TeamRole> out = new ArrayList<>();
        for (TeamRole t : memberships.teams()) {
            out.add(new TeamRole(t.team(), Role.ADMIN));
        }
        if (out.stream().noneMatch(t -> t.team().equals(DEFAULT_TEAM))) {
            out.add(0, new TeamRole(DEFAULT_TEAM, Role.ADMIN));
        }
        return List.copyOf(out);
    }

    /** The membership in {@code team}, when this person has one. */
    Optional<TeamRole> in(String team) {
        return teams().stream().filter(t -> t.team().equals(team)).findFirst();
    }

    /** The platform's caller for this person acting in {@code membership}'s team with its role. */
    CadrePrincipal principal(TeamRole membership) {
        return new CadrePrincipal(name, membership.role(), id, membership.teamId(), memberships.platformAdmin());
    }
}
