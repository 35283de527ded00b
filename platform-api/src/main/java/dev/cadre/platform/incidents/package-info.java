/**
 * Incident records, kept in shared memory and keyed by fingerprint (the "has someone already done
 * this?" check), and the tools agents use to open, find and close them.
 */
@NullMarked
package dev.cadre.platform.incidents;

import org.jspecify.annotations.NullMarked;
