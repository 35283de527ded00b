package dev.cadre.platform.security.oidc;

import dev.cadre.platform.security.Role;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which teams and roles the provider's groups grant: {@code cadre.auth.oidc.groups.<group>} is
 * {@code team:role}, checked when the platform starts. A person in several groups of one team
 * gets the highest of their roles there; a member of an admin group is a platform admin.
 */
final class GroupMapping {

    private final Map<String, TeamRole> byGroup;
    private final Set<String> adminGroups;

    GroupMapping(Map<String, String> groups, Collection<String> adminGroups) {
        Map<String, TeamRole> parsed = new TreeMap<>();
        groups.forEach((group, value) -> parsed.put(group, parse(group, value)));
        this.byGroup = Map.copyOf(parsed);
        this.adminGroups = Set.copyOf(adminGroups);
    }

    /** What a person who is in {@code groups} may do: their teams (sorted), and whether admin. */
    Memberships of(Collection<String> groups) {
        Map<String, Role> best = new TreeMap<>();
        boolean admin = false;
        for (String group : new HashSet<>(groups)) {
            admin |= adminGroups.contains(group);
            TeamRole granted = byGroup.get(group);
            if (granted != null) {
                best.merge(granted.team(), granted.role(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
            }
        }
        List<TeamRole> teams = best.entrySet().stream()
                .map(e -> new TeamRole(e.getKey(), e.getValue()))
                .toList();
        return new Memberships(teams, admin);
    }

    private static TeamRole parse(String group, String value) {
        String where = "cadre.auth.oidc.groups." + group;
        int colon = value == null ? -1 : value.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(where + ": '" + value + "' is not team:role (e.g. payments:operator)");
        }
        try {
            return new TeamRole(value.substring(0, colon).trim(), Role.parse(value.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
        }
    }

    /** A person's teams (with their role in each, sorted by team) and whether they are a platform admin. */
    record Memberships(List<TeamRole> teams, boolean platformAdmin) implements java.io.Serializable {

        Memberships {
            teams = List.copyOf(teams);
        }

        boolean none() {
            return teams.isEmpty() && !platformAdmin;
        }
    }
}
