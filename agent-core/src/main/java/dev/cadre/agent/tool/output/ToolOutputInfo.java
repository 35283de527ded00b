package dev.cadre.agent.tool.output;

/**
 * What is known of one kept tool output: whose it is, how big the original was and how much of it
 * (redacted) was kept.
 *
 * @param runId the run it belongs to; a handle is only ever read within its run
 * @param handle its name within the run
 * @param sessionId the session of the agent whose call produced it
 * @param callId that call
 * @param tool the tool
 * @param originalBytes UTF-8 bytes the tool returned
 * @param storedBytes UTF-8 bytes kept (after bounding and redaction)
 * @param storedLines lines kept (lines longer than {@link ToolOutputs#MAX_LINE_CHARS} are wrapped)
 * @param truncated whether even the kept copy had to drop part of the middle
 */
public record ToolOutputInfo(
        String runId,
        String handle,
        String sessionId,
        String callId,
        String tool,
        long originalBytes,
        long storedBytes,
        long storedLines,
        boolean truncated) {}
