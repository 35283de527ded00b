package dev.cadre.agent.telemetry;

import java.util.Objects;

/**
 * Whether tool arguments and results are recorded on {@code execute_tool} spans
 * ({@code gen_ai.tool.call.arguments}, {@code gen_ai.tool.call.result}); off by default because they
 * can hold secrets, and always passed through the redactor.
 */
public record TelemetryOptions(boolean captureContent, Redactor redactor) {

    /** Nothing captured. */
    public static final TelemetryOptions DEFAULT = new TelemetryOptions(false, Redactor.NONE);

    public TelemetryOptions {
        Objects.requireNonNull(redactor, "redactor");
    }
}
