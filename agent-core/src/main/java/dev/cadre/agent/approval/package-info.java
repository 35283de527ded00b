/**
 * The approval gate port: what the loop asks a human before an {@code APPROVE} call (and for result
 * reviews and debate tie-breaks), and the closed set of decisions it gets back.
 */
@NullMarked
package dev.cadre.agent.approval;

import org.jspecify.annotations.NullMarked;
