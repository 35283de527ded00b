/**
 * Workflows: static orchestration beside the model-driven one (DESIGN.md section 2, seed 003) -
 * sequence with a baton, parallel map-reduce over standard findings, debate with consensus and a
 * human tie-breaker, a programmatic split of a long mission, and handoff. Each is a record, so
 * platform-api can build them from configuration ({@link dev.cadre.agent.workflow.Workflows#fromMap}).
 */
@NullMarked
package dev.cadre.agent.workflow;

import org.jspecify.annotations.NullMarked;
