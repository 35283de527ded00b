package dev.cadre.platform.runs;

import dev.cadre.platform.security.Actor;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A run as stored: what was asked, where it stands, and what came of it; {@code retryOf} names the
 * run this one retries, {@code priority} and {@code deadline} are the submission's task envelope,
 * {@code cost} what its model calls cost so far and {@code maxCost} its budget in currency;
 * {@code submittedByKey} the id of the API key that submitted it (null: the platform itself).
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
        @Nullable Instant deadline,
        double cost,
        @Nullable Double maxCost,
        @Nullable String submittedByKey) {

    /** A run submitted by an actor without a key (the platform itself): see {@link #submitter()}. */
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
            Instant updatedAt,
            @Nullable String retryOf,
            int priority,
            @Nullable Instant deadline,
            double cost,
            @Nullable Double maxCost) {
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
                retryOf,
                priority,
                deadline,
                cost,
                maxCost,
                null);
    }

    /**
     * Who submitted the run: the key whose id is {@code submittedByKey} (what ownership, task
     * isolation and separation of duties compare), shown as {@code submittedBy}; null key id: the
     * platform itself, which is no key.
     */
    public Actor submitter() {
        return new Actor(submittedByKey, submittedBy);
    }

    /** A run without retry link, at priority 0, without deadline, with nothing spent and no budget in currency. */
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
                null,
                0,
                null);
    }

    /** The same record with a budget in currency. */
    public RunRecord withMaxCost(@Nullable Double max) {
        return new RunRecord(
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
                retryOf,
                priority,
                deadline,
                cost,
                max,
                submittedByKey);
    }

    /** The same record with these texts (input, context, result, failure message, subagents): their redacted form. */
    public RunRecord withTexts(
            String input,
            @Nullable String context,
            @Nullable String result,
            @Nullable String failureMessage,
            @Nullable String subagentsJson) {
        return new RunRecord(
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
                retryOf,
                priority,
                deadline,
                cost,
                maxCost,
                submittedByKey);
    }
}
