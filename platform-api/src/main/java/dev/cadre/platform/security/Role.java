package dev.cadre.platform.security;

/** The platform's roles; each includes the ones below it (admin ⊃ operator ⊃ viewer). */
public enum Role {
    /** Reads everything: runs, traces, approvals, memory, agents. */
    VIEWER,
    /** Also submits and cancels runs, decides approvals, writes shared memory. */
    OPERATOR,
    /** Also manages API keys and reads the audit log. */
    ADMIN;

    String authority() {
        return "ROLE_" + name();
    }

    static Role parse(String value) {
        try {
            return Role.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown role '" + value + "': expected viewer, operator or admin");
        }
    }
}
