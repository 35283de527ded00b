package dev.cadre.platform.tenancy;

import java.util.regex.Pattern;

/**
 * A team's name, which is also its identity: a DNS-1123 label (1 to 63 of {@code a-z}, {@code 0-9}
 * and {@code -}, starting and ending with a letter or digit), so it can name a Kubernetes
 * namespace, a metric label or a path segment unchanged, and no two names look alike.
 */
public record TeamId(String name) implements Comparable<TeamId> {

    // Before DEFAULT: static fields initialise in order, and DEFAULT's constructor reads it.
    private static final Pattern LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    /** The team an install had before it had teams: every earlier key, run and record is its. */
    public static final TeamId DEFAULT = new TeamId("default");

    /** @throws IllegalArgumentException naming the rule when {@code name} is not a team name */
    public TeamId {
        if (name == null || !LABEL.matcher(name).matches()) {
            throw new IllegalArgumentException("team '" + name + "' is not a team name: use 1 to 63 of a-z, 0-9 and"
                    + " '-', starting and ending with a letter or digit");
        }
    }

    /** The team named {@code name}, or empty when it is not a team name. */
    public static java.util.Optional<TeamId> parse(String name) {
        return name != null && LABEL.matcher(name).matches()
                ? java.util.Optional.of(new TeamId(name))
                : java.util.Optional.empty();
    }

    @Override
    public int compareTo(TeamId other) {
        return name.compareTo(other.name);
    }

    @Override
    public String toString() {
        return name;
    }
}
