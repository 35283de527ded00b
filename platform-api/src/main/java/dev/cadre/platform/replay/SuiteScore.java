package dev.cadre.platform.replay;

import java.time.Duration;
import java.util.List;

/**
 * A suite's cases aggregated: how many passed, found the root cause, mean precision and recall, and
 * the sums of red herrings, missed and forbidden actions, deviations, turns, tokens, cost and duration.
 */
public record SuiteScore(
        int cases,
        int passed,
        int rootCauseFound,
        double precision,
        double recall,
        int redHerrings,
        int missedActions,
        int forbiddenProposed,
        int deviations,
        long turns,
        long tokens,
        double cost,
        Duration duration) {

    /** The aggregate of {@code results}; a case without a score counts as failed with nothing found. */
    public static SuiteScore of(List<CaseResult> results) {
        int passed = 0;
        int root = 0;
        double precision = 0;
        double recall = 0;
        int red = 0;
        int missed = 0;
        int forbidden = 0;
        int deviations = 0;
        long turns = 0;
        long tokens = 0;
        double cost = 0;
        Duration duration = Duration.ZERO;
        for (CaseResult r : results) {
            passed += r.passed() ? 1 : 0;
            CaseScore s = r.score();
            if (s == null) {
                continue;
            }
            root += s.rootCauseFound() ? 1 : 0;
            precision += s.precision();
            recall += s.recall();
            red += s.redHerrings().size();
            missed += s.missedActions().size();
            forbidden += s.forbiddenProposed().size();
            deviations += s.deviations().size();
            turns += s.turns();
            tokens += s.tokens();
            cost += s.cost();
            duration = duration.plus(s.duration());
        }
        int n = results.size();
        return new SuiteScore(
                n,
                passed,
                root,
                n == 0 ? 1.0 : precision / n,
                n == 0 ? 1.0 : recall / n,
                red,
                missed,
                forbidden,
                deviations,
                turns,
                tokens,
                cost,
                duration);
    }
}
