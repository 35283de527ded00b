package dev.cadre.platform.security;

import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.web.KeyedCaller;

/**
 * Who is calling: the API key (a console session carries the key it logged in with), its name, its
 * role, the team it acts in, and whether it is a platform admin (who manages teams and may act in
 * any of them). Decisions about who may do what compare {@code keyId} ({@link #actor()}); the name
 * is for display. What the caller may see is {@link #scope()}: its team's objects only.
 */
public record CadrePrincipal(String name, Role role, String keyId, TeamId team, boolean platformAdmin)
        implements KeyedCaller {

    /** A caller of team {@code default} that is no platform admin (as every caller was before teams). */
    public CadrePrincipal(String name, Role role, String keyId) {
        this(name, role, keyId, TeamId.DEFAULT, false);
    }

    /** The caller as an actor whose identity is its key id. */
    public Actor actor() {
        return new Actor(keyId, name);
    }

    /** The objects this caller may see and the team what it makes belongs to: its team's. */
    public TeamScope scope() {
        return TeamScope.of(team);
    }

    /** The same caller acting in {@code other} (a platform admin's choice of team). */
    public CadrePrincipal inTeam(TeamId other) {
        return new CadrePrincipal(name, role, keyId, other, platformAdmin);
    }

    /**
     * What the filter chain checks: the role, and for a platform admin also {@code PLATFORM_ADMIN}
     * (team management and the audit log of all teams).
     */
    public java.util.List<org.springframework.security.core.GrantedAuthority> authorities() {
        var role = new org.springframework.security.core.authority.SimpleGrantedAuthority(role().authority());
        return platformAdmin
                ? java.util.List.of(
                        role,
                        new org.springframework.security.core.authority.SimpleGrantedAuthority(
                                "ROLE_" + SecurityConfiguration.PLATFORM_ADMIN))
                : java.util.List.of(role);
    }

    @Override
    public String toString() {
        return name;
    }
}
