package dev.cadre.memory;

/**
 * A request that memory refuses before touching any store, naming the field that is wrong and why
 * (an empty key, an oversized value, invalid JSON, a negative version, an undeclared namespace).
 */
public final class InvalidMemoryRequestException extends IllegalArgumentException {

    private final String field;
    private final String problem;

    public InvalidMemoryRequestException(String field, String problem) {
        super(field + " " + problem);
        this.field = field;
        this.problem = problem;
    }

    /** The request field that is wrong, e.g. {@code key} or {@code value}. */
    public String field() {
        return field;
    }

    /** What is wrong with it, e.g. {@code must not be empty}. */
    public String problem() {
        return problem;
    }
}
