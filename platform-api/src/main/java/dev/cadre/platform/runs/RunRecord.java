package dev.cadre.platform.runs;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** A run as stored: what was asked, where it stands, and what came of it. */
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
        Instant updatedAt) {}
