package dev.cadre.agent.run.internal;

import org.jspecify.annotations.Nullable;

/** How an unexpected exception reads in a failure message. */
final class Errors {

    private Errors() {}

    /** {@code SimpleName: message}, so a parent or a human sees what broke without a stack trace. */
    static String describe(@Nullable Throwable e) {
        if (e == null) {
            return "unknown error";
        }
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
