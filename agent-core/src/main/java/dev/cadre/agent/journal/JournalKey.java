package dev.cadre.agent.journal;

/** Identifies one tool call across restarts: the run, the calling session and the model's call id. */
public record JournalKey(String runId, String sessionId, String callId) {}
