/**
 * Telemetry: options for spans through an injected OpenTelemetry (content capture, redaction) and a
 * metrics-neutral listener platform-api feeds Micrometer from.
 */
@NullMarked
package dev.cadre.agent.telemetry;

import org.jspecify.annotations.NullMarked;
