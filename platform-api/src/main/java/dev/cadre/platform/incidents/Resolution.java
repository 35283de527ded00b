package dev.cadre.platform.incidents;

/** Why an incident happened and what fixed it, as the person resolving it says. */
public record Resolution(String rootCause, String fix) {

    public Resolution {
        if (rootCause == null || rootCause.isBlank()) {
            throw new IllegalArgumentException("rootCause must not be blank");
        }
        if (fix == null || fix.isBlank()) {
            throw new IllegalArgumentException("fix must not be blank");
        }
    }
}
