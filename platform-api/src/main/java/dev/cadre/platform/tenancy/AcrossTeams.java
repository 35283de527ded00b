package dev.cadre.platform.tenancy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public method of a {@link TeamOwned} store that takes no {@link TeamScope} on purpose: the
 * platform's own work (the executor on a run it holds, recovery, retention, statistics), never a
 * request's lookup. {@code value} says why; the architecture test refuses any other such method.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface AcrossTeams {

    /** Why this method spans teams. */
    String value();
}
