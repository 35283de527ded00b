/**
 * Human approval of risky tool calls: requests, decisions and their expiry. {@link
 * dev.cadre.platform.approvals.ApprovalStore} is the only owner of the {@code cadre_approval} table.
 */
@NullMarked
package dev.cadre.platform.approvals;

import org.jspecify.annotations.NullMarked;
