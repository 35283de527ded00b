package dev.cadre.agent.model;

/**
 * One entry of an agent's history: the closed set the loop, the model port and checkpoints agree on.
 */
public sealed interface Message permits SystemMessage, UserMessage, AssistantMessage, ToolResultMessage {}
