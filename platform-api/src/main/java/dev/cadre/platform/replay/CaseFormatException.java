package dev.cadre.platform.replay;

import java.util.List;

/** A case file that is not valid: every error names the file and the field ({@code x.yaml: input.agent: ...}). */
public final class CaseFormatException extends RuntimeException {

    private final List<String> errors;

    CaseFormatException(List<String> errors) {
        super(String.join("\n", errors));
        this.errors = List.copyOf(errors);
    }

    /** Each error, one per wrong field. */
    public List<String> errors() {
        return errors;
    }
}
