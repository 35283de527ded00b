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

    /** The alert labels that name a host, in the order they are trusted. */
    public static final java.util.List<String> HOST_LABELS = java.util.List.of("instance", "node", "host", "nodename");

    /**
     * What an alert is about, from its labels: a Kubernetes workload ({@code namespace} with {@code pod}
     * or {@code deployment}), else a host ({@code instance}, {@code node}, {@code host}, {@code nodename},
     * first present wins; the display name without the port, {@code instance} the raw label when the host
     * came from it), else null. Values are kept to label-like characters.
     */
    public static @Nullable IncidentTarget fromLabels(java.util.Map<String, String> labels) {
        String ns = safe(labels.get("namespace"));
        String pod = safe(labels.get("pod"));
        String deployment = safe(labels.get("deployment"));
        if (!ns.isEmpty() && !pod.isEmpty()) {
            return new IncidentTarget(Kind.POD, pod, ns, null);
        }
        if (!ns.isEmpty() && !deployment.isEmpty()) {
            return new IncidentTarget(Kind.DEPLOYMENT, deployment, ns, null);
        }
        for (String label : HOST_LABELS) {
            String value = safe(labels.get(label));
            if (!value.isEmpty()) {
                return new IncidentTarget(Kind.HOST, withoutPort(value), null, label.equals("instance") ? value : null);
            }
        }
        return null;
    }

    /** {@code web-1:9100} → {@code web-1}; {@code [::1]:9100} → {@code ::1}; a bare IPv6 address stays. */
    public static String withoutPort(String address) {
        if (address.startsWith("[")) {
            int close = address.indexOf(']');
            return close > 0 ? address.substring(1, close) : address;
        }
        int colon = address.indexOf(':');
        if (colon > 0
                && colon == address.lastIndexOf(':')
                && address.substring(colon + 1).matches("\\d{1,5}")) {
            return address.substring(0, colon);
        }
        return address;
    }

    /** Label-like characters only, at most 253 (a DNS name): a target is quoted into queries and prompts. */
    static String safe(@Nullable String value) {
        if (value == null) {
            return "";
        }
        String s = value.strip().replaceAll("[^A-Za-z0-9_.:\\[\\]@/-]", "");
        return s.length() > 253 ? s.substring(0, 253) : s;
    }

    /** {@code namespace/name}, or the name alone: how lists and filters show it. */
    public String display() {
        return namespace == null || namespace.isBlank() ? name : namespace + "/" + name;
    }
}
