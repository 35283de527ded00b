/**
 * Cross-cutting web concerns: problem-details errors, request limits, secret redaction and
 * server-sent event heartbeats.
 */
@NullMarked
package dev.cadre.platform.web;

import org.jspecify.annotations.NullMarked;
