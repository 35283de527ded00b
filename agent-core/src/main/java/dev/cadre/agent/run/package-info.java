/**
 * Running agents: the runner, run requests and handles, outcomes, observers, checkpoints and their
 * JSON codec, and the limits that stop runaway trees.
 */
@NullMarked
package dev.cadre.agent.run;

import org.jspecify.annotations.NullMarked;
