package dev.cadre.platform.replay;

import java.util.List;

/**
 * A replay request that cannot start: {@code field} names the first wrong field (e.g. {@code
 * suite[2]}, {@code team}), each error is {@code field: what is wrong} ({@code suite[2]: version:
 * must be 1 (was 2)}).
 */
public final class ReplayInputException extends RuntimeException {

    private final String field;
    private final List<String> errors;

    ReplayInputException(String field, List<String> errors) {
        super(String.join("\n", errors));
        this.field = field;
        this.errors = List.copyOf(errors);
    }

    ReplayInputException(String field, String error) {
        this(field, List.of(field + ": " + error));
    }

    /** The first wrong field. */
    public String field() {
        return field;
    }

    /** Every error, each starting with its field. */
    public List<String> errors() {
        return errors;
    }
}
