/**
 * Metrics and traces of runs: the platform's span store ({@link
 * dev.cadre.platform.observability.TraceStore}, owner of {@code cadre_span}), its trace view, and
 * trace context passed to outbound calls.
 */
@NullMarked
package dev.cadre.platform.observability;

import org.jspecify.annotations.NullMarked;
