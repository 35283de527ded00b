package dev.cadre.platform.runs;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A run as stored: what was asked, where it stands, and what came of it; {@code retryOf} names the
 * run this one retries, {@code priority} and {@code deadline} are the submission's task envelope.
 */
public record RunRecord(
        String id,
        String agent,
        String input,
        @Nullable String context,
        RunStatus status,
        @Nullable String result,
        @Nullable String failureCategory,
        @Nullable String failureCode,
        @Nullable String failureMessage,
        @Nullable String subagentsJson,
        @Nullable String toolsCalledJson,
        long inputTokens,
        long outputTokens,
        int iterations,
        String submittedBy,
        @Nullable String idempotencyKey,
        @Nullable String requestHash,
        @Nullable String traceId,
        @Nullable String checkpoint,
        int resumeCount,
        Instant createdAt,
        @Nullable Instant startedAt,
        @Nullable Instant finishedAt,
        Instant updatedAt,
        @Nullable String retryOf,
        int priority,
        @Nullable Instant deadline) {

    /** A run without retry link, at priority 0, without deadline. */
    public RunRecord(
            String id,
            String agent,
            String input,
            @Nullable String context,
            RunStatus status,
            @Nullable String result,
            @Nullable String failureCategory,
            @Nullable String failureCode,
            @Nullable String failureMessage,
            @Nullable String subagentsJson,
            @Nullable String toolsCalledJson,
            long inputTokens,
            long outputTokens,
            int iterations,
            String submittedBy,
            @Nullable String idempotencyKey,
            @Nullable String requestHash,
            @Nullable String traceId,
            @Nullable String checkpoint,
            int resumeCount,
            Instant createdAt,
            @Nullable Instant startedAt,
            @Nullable Instant finishedAt,
            Instant updatedAt) {
        this(
                id,
                agent,
                input,
                context,
                status,
                result,
                failureCategory,
                failureCode,
                failureMessage,
                subagentsJson,
                toolsCalledJson,
                inputTokens,
                outputTokens,
                iterations,
                submittedBy,
                idempotencyKey,
                requestHash,
                traceId,
                checkpoint,
                resumeCount,
                createdAt,
                startedAt,
                finishedAt,
                updatedAt,
                null,
                0,
                null);
    }
}
