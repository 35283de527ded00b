package dev.cadre.platform.tenancy;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A store of team-owned rows: each of its public methods takes the {@link TeamScope} it reads or
 * writes in, or says with {@link AcrossTeams} why it spans teams (the architecture test checks it).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface TeamOwned {}
