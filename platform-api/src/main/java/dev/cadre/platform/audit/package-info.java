/**
 * The audit log of who did what ({@code cadre_audit_log}, owned by {@link
 * dev.cadre.platform.audit.AuditLog}) and its read-only API.
 */
@NullMarked
package dev.cadre.platform.audit;

import org.jspecify.annotations.NullMarked;
