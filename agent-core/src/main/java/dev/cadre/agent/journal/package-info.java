/**
 * The tool journal port: side-effecting calls are recorded before and after they run, so a resumed
 * run never executes the same action twice.
 */
@NullMarked
package dev.cadre.agent.journal;

import org.jspecify.annotations.NullMarked;
