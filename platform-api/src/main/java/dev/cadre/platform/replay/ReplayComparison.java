package dev.cadre.platform.replay;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Baseline against candidate, case by case and for the suite: prints a table of each measure as
 * {@code baseline→candidate} with what got better and worse, and answers the regressions beyond the
 * thresholds. A forbidden action the candidate proposes is always a regression.
 */
final class ReplayComparison {

    private static final String ROW = "%-28s %-9s %-9s %-11s %-7s %-7s %-9s %-7s %-9s %-15s %-17s %s%n";

    private final Map<String, Double> thresholds;

    ReplayComparison(Map<String, Double> thresholds) {
        this.thresholds = thresholds;
    }

    /** Prints the table to {@code out}; the regressions, each naming its case and measure. */
    List<String> compare(ReplayService.Replay baseline, ReplayService.Replay candidate, PrintStream out) {
        out.printf(
                Locale.ROOT,
                ROW,
                "case",
                "passed",
                "root",
                "recall",
                "red",
                "missed",
                "forbidden",
                "dev",
                "turns",
                "tokens",
                "cost",
                "verdict");
        List<String> regressions = new ArrayList<>();
        for (CaseResult b : baseline.cases()) {
            CaseResult c = candidate.cases().stream()
                    .filter(x -> x.index() == b.index())
                    .findFirst()
                    .orElseThrow();
            CaseScore bs = b.score();
            CaseScore cs = c.score();
            if (bs == null || cs == null) {
                regressions.add(b.caseName() + ": not scored");
                continue;
            }
            List<String> worse = new ArrayList<>();
            List<String> better = new ArrayList<>();
            if (!cs.forbiddenProposed().isEmpty()) {
                worse.add("forbidden action proposed " + cs.forbiddenProposed());
            }
            if (b.passed() != c.passed()) {
                (b.passed() ? worse : better).add(b.passed() ? "no longer passes" : "now passes");
            }
            if (!b.runStatus().equals(c.runStatus())) {
                (c.runStatus().equals("completed") ? better : worse).add("run " + b.runStatus() + "→" + c.runStatus());
            }
            if (bs.rootCauseFound() != cs.rootCauseFound()) {
                (bs.rootCauseFound() ? worse : better)
                        .add(bs.rootCauseFound() ? "root cause no longer found" : "root cause found");
            }
            absolute("recall", bs.recall(), cs.recall(), true, worse, better);
            absolute("red-herrings", bs.redHerrings().size(), cs.redHerrings().size(), false, worse, better);
            absolute(
                    "missed-actions",
                    bs.missedActions().size(),
                    cs.missedActions().size(),
                    false,
                    worse,
                    better);
            absolute("deviations", bs.deviations().size(), cs.deviations().size(), false, worse, better);
            relative("turns", bs.turns(), cs.turns(), worse, better);
            relative("tokens", bs.tokens(), cs.tokens(), worse, better);
            relative("cost", bs.cost(), cs.cost(), worse, better);
            out.printf(
                    Locale.ROOT,
                    ROW,
                    b.caseName(),
                    yes(b.passed()) + "→" + yes(c.passed()),
                    yes(bs.rootCauseFound()) + "→" + yes(cs.rootCauseFound()),
                    String.format(Locale.ROOT, "%.2f→%.2f", bs.recall(), cs.recall()),
                    bs.redHerrings().size() + "→" + cs.redHerrings().size(),
                    bs.missedActions().size() + "→" + cs.missedActions().size(),
                    bs.forbiddenProposed().size() + "→" + cs.forbiddenProposed().size(),
                    bs.deviations().size() + "→" + cs.deviations().size(),
                    bs.turns() + "→" + cs.turns(),
                    bs.tokens() + "→" + cs.tokens(),
                    String.format(Locale.ROOT, "%.4f→%.4f", bs.cost(), cs.cost()),
                    verdict(worse, better));
            worse.forEach(w -> regressions.add(b.caseName() + ": " + w));
        }
        SuiteScore bs = baseline.summary();
        SuiteScore cs = candidate.summary();
        if (bs != null && cs != null) {
            out.printf(
                    Locale.ROOT,
                    ROW,
                    "SUITE (" + bs.cases() + " cases)",
                    bs.passed() + "→" + cs.passed(),
                    bs.rootCauseFound() + "→" + cs.rootCauseFound(),
                    String.format(Locale.ROOT, "%.2f→%.2f", bs.recall(), cs.recall()),
                    bs.redHerrings() + "→" + cs.redHerrings(),
                    bs.missedActions() + "→" + cs.missedActions(),
                    bs.forbiddenProposed() + "→" + cs.forbiddenProposed(),
                    bs.deviations() + "→" + cs.deviations(),
                    bs.turns() + "→" + cs.turns(),
                    bs.tokens() + "→" + cs.tokens(),
                    String.format(Locale.ROOT, "%.4f→%.4f", bs.cost(), cs.cost()),
                    String.format(
                            Locale.ROOT,
                            // Precision has no column (it moves with recall in most changes); the suite's is here.
                            "%d regression(s); precision %.2f→%.2f; time in runs %.1fs→%.1fs",
                            regressions.size(),
                            bs.precision(),
                            cs.precision(),
                            bs.duration().toMillis() / 1000.0,
                            cs.duration().toMillis() / 1000.0));
        }
        return regressions;
    }

    /** A measure where {@code higherIsBetter} or lower is, compared by difference. */
    private void absolute(
            String name, double base, double cand, boolean higherIsBetter, List<String> worse, List<String> better) {
        double loss = higherIsBetter ? base - cand : cand - base;
        String change = name + " " + num(base) + "→" + num(cand);
        if (loss > thresholds.get(name) + 1e-9) {
            worse.add(change);
        } else if (loss < -1e-9) {
            better.add(change);
        }
    }

    /** A cost measure (lower is better), compared by its relative increase over the baseline's. */
    private void relative(String name, double base, double cand, List<String> worse, List<String> better) {
        if (base <= 0) {
            return; // nothing to compare with (e.g. the cost of scripted models)
        }
        double growth = (cand - base) / base;
        String change = String.format(Locale.ROOT, "%s %s→%s (%+.0f%%)", name, num(base), num(cand), growth * 100);
        if (growth > thresholds.get(name) + 1e-9) {
            worse.add(change);
        } else if (growth < -1e-9) {
            better.add(change);
        }
    }

    private static String verdict(List<String> worse, List<String> better) {
        if (worse.isEmpty() && better.isEmpty()) {
            return "same";
        }
        String w = worse.isEmpty() ? "" : "WORSE: " + String.join(", ", worse);
        String b = better.isEmpty() ? "" : "better: " + String.join(", ", better);
        return w.isEmpty() ? b : b.isEmpty() ? w : w + "; " + b;
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    private static String num(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.format(Locale.ROOT, "%.2f", d);
    }
}
