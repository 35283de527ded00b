package dev.cadre.platform.runs;

import java.util.Locale;

/** A run's state, named as A2A task states so a run is an A2A task without translation. */
public enum RunStatus {
    SUBMITTED("submitted"),
    WORKING("working"),
    INPUT_REQUIRED("input-required"),
    COMPLETED("completed"),
    FAILED("failed"),
    CANCELED("canceled"),
    REJECTED("rejected");

    private final String wire;

    RunStatus(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public boolean terminal() {
        return switch (this) {
            case COMPLETED, FAILED, CANCELED, REJECTED -> true;
            case SUBMITTED, WORKING, INPUT_REQUIRED -> false;
        };
    }

    public static RunStatus fromWire(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (RunStatus s : values()) {
            if (s.wire.equals(v)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown run status '" + value
                + "': expected submitted, working, input-required, completed, failed, canceled or rejected");
    }
}
