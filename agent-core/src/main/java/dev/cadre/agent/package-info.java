/**
 * Cadre's agent core: agent specifications, the agent tree, the failure taxonomy and the values
 * shared by the loop, delegation and workflows (DESIGN.md section 2).
 */
@NullMarked
package dev.cadre.agent;

import org.jspecify.annotations.NullMarked;
