package dev.cadre.agent.tool;

/** Who is calling a tool: the run, the calling agent's session, the agent and the call id. */
public record ToolContext(String runId, String sessionId, String agent, String callId) {}
