package dev.cadre.platform.incidents;

import org.jspecify.annotations.Nullable;

/**
 * What an incident is about: a host, a pod, a deployment, a service, the platform itself.
 * {@code instance} is the raw address label ({@code web-1:9100}), {@code name} the display name
 * ({@code web-1}). Stored on the incident value as {@code target: {kind, name, namespace, instance}}.
 */
public record IncidentTarget(
        Kind kind,
        String name,
        @Nullable String namespace,
        @Nullable String instance) {

    /** The kinds of thing an incident can be about. */
    public enum Kind {
        HOST,
        POD,
        DEPLOYMENT,
        SERVICE,
        PLATFORM,
        UNKNOWN
    }

    public IncidentTarget {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("an incident target needs a name");
        }
    }

    /** {@code namespace/name}, or the name alone: how lists and filters show it. */
    public String display() {
        return namespace == null || namespace.isBlank() ? name : namespace + "/" + name;
    }
}
