package dev.cadre.platform.replay;

import org.jspecify.annotations.Nullable;

/**
 * One case of a replay: its run, how the run ended and, once it has, its score. It passes when the
 * score does and the run did not fail or get canceled.
 */
public record CaseResult(
        int index,
        String caseName,
        String runId,
        String runStatus,
        @Nullable CaseScore score) {

    /** Whether the case passed (false while its run has not ended). */
    public boolean passed() {
        return score != null && score.passed() && !runStatus.equals("failed") && !runStatus.equals("canceled");
    }
}
