package dev.cadre.platform.agents;

/**
 * Marks a tool that acts outside the platform: it sends text to people or other systems (the ops
 * channel's webhook, a remote agent, an MCP server). In a run an untrusted source started, such a
 * tool waits for a human (docs/security.md, "Runs no person submitted").
 */
public interface Outward {}
