package dev.cadre.platform.agents;

import dev.cadre.agent.workflow.Workflow;

/**
 * A workflow declared in the {@code workflows} section of an agents file: runnable by name like an
 * agent (unless {@code internal}), its steps running the catalogue's agents.
 */
public record DeclaredWorkflow(String name, String description, boolean internal, Workflow workflow, String source) {}
