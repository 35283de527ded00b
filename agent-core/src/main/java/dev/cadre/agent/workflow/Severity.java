package dev.cadre.agent.workflow;

import java.util.Locale;

/** How bad a finding is, most severe first. */
public enum Severity {
    CRITICAL,
    HIGH,
    MEDIUM,
    LOW,
    INFO;

    /** Parses a severity case-insensitively; unknown words are {@link #INFO}. */
    public static Severity parse(String text) {
        try {
            return valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return INFO;
        }
    }
}
