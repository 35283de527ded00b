package dev.cadre.platform.security;

/**
 * The platform's roles. The people's roles include the ones below them (admin ⊃ operator ⊃
 * viewer); an operator may also do what the two integration roles do. The integration roles are
 * narrow on purpose: they submit work and can never decide an approval or read the platform.
 */
public enum Role {
    /** Reads everything: runs, traces, approvals, memory, agents. */
    VIEWER,
    /** Also submits and cancels runs, decides approvals, writes shared memory. */
    OPERATOR,
    /** Also manages API keys and reads the audit log. */
    ADMIN,
    /** Alertmanager's webhook: posts alerts to {@code /api/v1/integrations/alertmanager}, nothing else. */
    INTAKE,
    /** Another agent speaking A2A: hands Cadre tasks at {@code /a2a} and follows them, nothing else. */
    AGENT;

    String authority() {
        return "ROLE_" + name();
    }

    /** Whether this role is one of an integration (not a person): such keys cannot log in to the console. */
    boolean integration() {
        return this == INTAKE || this == AGENT;
    }

    /** The role named {@code value} (any case); an exception naming the roles for anything else. */
    public static Role parse(String value) {
        try {
            return Role.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown role '" + value + "': expected viewer, operator, admin, intake or agent");
        }
    }
}
