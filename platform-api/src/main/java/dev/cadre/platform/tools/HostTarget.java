package dev.cadre.platform.tools;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The host an investigation is about: {@code name} as people say it ({@code web-1}, the port stripped),
 * {@code instance} the address label Prometheus knows it by ({@code web-1:9100}; null until resolved),
 * where it came from ({@code source}) and when the alert about it started ({@code startsAt}, RFC 3339;
 * null for a request typed by a person).
 */
public record HostTarget(
        String name,
        @Nullable String instance,
        String source,
        @Nullable String startsAt) {

    /** The alert labels that name a host, in the order they are trusted. */
    public static final List<String> HOST_LABELS = List.of("instance", "node", "host", "nodename");

    public HostTarget {
        name = safe(name);
        instance = instance == null || instance.isBlank() ? null : safe(instance);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a host target needs a name");
        }
    }

    /**
     * The host an alert is about, from its labels ({@code instance}, {@code node}, {@code host},
     * {@code nodename}, first present wins), or null when none names one. The display name is the
     * value without its port ({@code web-1:9100} → {@code web-1}; {@code [::1]:9100} → {@code ::1}).
     */
    public static @Nullable HostTarget fromLabels(Map<String, String> labels, @Nullable String startsAt) {
        for (String label : HOST_LABELS) {
            String value = labels.get(label);
            if (value != null && !value.isBlank() && !safe(value).isEmpty()) {
                String v = safe(value);
                return new HostTarget(
                        withoutPort(v),
                        label.equals("instance") ? v : null,
                        "alert label " + label,
                        startsAt == null || startsAt.isBlank() ? null : safe(startsAt));
            }
        }
        return null;
    }

    /** {@code web-1:9100} → {@code web-1}; {@code [::1]:9100} → {@code ::1}; a bare IPv6 address stays. */
    public static String withoutPort(String address) {
        return dev.cadre.platform.incidents.IncidentTarget.withoutPort(address);
    }

    /** Label-like characters only and at most 253 (a DNS name): a target is quoted into PromQL and prompts. */
    static String safe(String value) {
        String s = value.strip().replaceAll("[^A-Za-z0-9_.:\\[\\]@-]", "");
        return s.length() > 253 ? s.substring(0, 253) : s;
    }
}
