package dev.cadre.platform.evals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Scores what the runs of a suite did against what its cases expected: pure arithmetic over
 * observations, so the figures can be checked by hand and tested without running anything.
 */
final class EvalScoring {

    private EvalScoring() {}

    /**
     * What one run did, read from its record.
     *
     * @param delegated workers delegated to, in call order (one entry per call)
     * @param refused names called as workers that are neither workers nor tools of the orchestrator
     * @param tasks per worker, the tasks the orchestrator sent it (the delegations' arguments)
     */
    record Observation(
            String runId,
            String status,
            List<String> delegated,
            List<String> refused,
            Map<String, List<String>> tasks,
            @Nullable String answer,
            long inputTokens,
            long outputTokens,
            @Nullable Double cost,
            long durationMs) {

        boolean completed() {
            return "completed".equals(status);
        }
    }

    static EvalReport score(EvalSuite suite, Map<String, List<Observation>> runsByCase, Set<String> knownWorkers) {
        List<EvalReport.CaseScore> cases = new ArrayList<>();
        Map<String, int[]> workers = new TreeMap<>(); // expected, routed, correct, misrouted, missed
        long delegations = 0;
        long misroutes = 0;
        long missedTotal = 0;
        int runs = 0;
        int failed = 0;
        Ratio routing = new Ratio();
        Ratio path = new Ratio();
        Mean facts = new Mean();
        Mean consistency = new Mean();
        Mean inTokens = new Mean();
        Mean outTokens = new Mean();
        Mean cost = new Mean();
        for (EvalSuite.Case c : suite.cases()) {
            List<Observation> observed = runsByCase.getOrDefault(c.name(), List.of());
            List<EvalReport.RunScore> attempts = new ArrayList<>();
            Ratio caseRouting = new Ratio();
            Ratio casePath = new Ratio();
            Mean caseFacts = new Mean();
            Mean caseIn = new Mean();
            Mean caseOut = new Mean();
            Mean caseCost = new Mean();
            long caseMisroutes = 0;
            long caseMissed = 0;
            int caseFailed = 0;
            Map<Set<String>, Integer> routings = new HashMap<>();
            for (Observation o : observed) {
                EvalReport.RunScore s = scoreRun(c, o);
                attempts.add(s);
                runs++;
                if (!o.completed()) {
                    failed++;
                    caseFailed++;
                }
                delegations += o.delegated().size() + o.refused().size();
                caseMisroutes += s.misrouted().size();
                caseMissed += s.missed().size();
                caseRouting.add(s.routingCorrect());
                casePath.add(decomposed(s));
                caseFacts.add(s.factRecall());
                caseIn.add((double) o.inputTokens());
                caseOut.add((double) o.outputTokens());
                caseCost.add(o.cost());
                Set<String> routed = new TreeSet<>(o.delegated());
                routed.addAll(o.refused());
                routings.merge(routed, 1, Integer::sum);
                if (c.workers() != null) {
                    Set<String> expected = new LinkedHashSet<>(c.workers());
                    Set<String> all = new TreeSet<>(expected);
                    all.addAll(routed);
                    for (String w : all) {
                        int[] t = workers.computeIfAbsent(w, k -> new int[5]);
                        boolean e = expected.contains(w);
                        boolean r = routed.contains(w);
                        t[0] += e ? 1 : 0;
                        t[1] += r ? 1 : 0;
                        t[2] += e && r ? 1 : 0;
                        t[3] += r && !e ? 1 : 0;
                        t[4] += e && !r ? 1 : 0;
                    }
                }
            }
            misroutes += caseMisroutes;
            missedTotal += caseMissed;
            routing.addAll(caseRouting);
            path.addAll(casePath);
            attempts.forEach(a -> facts.add(a.factRecall()));
            attempts.forEach(a -> {
                inTokens.add((double) a.inputTokens());
                outTokens.add((double) a.outputTokens());
                cost.add(a.cost());
            });
            int modal =
                    routings.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            double caseConsistency = observed.isEmpty() ? 0 : (double) modal / observed.size();
            consistency.add(caseConsistency);
            cases.add(new EvalReport.CaseScore(
                    c.name(),
                    observed.size(),
                    caseFailed,
                    caseRouting.value(),
                    casePath.value(),
                    caseConsistency,
                    caseFacts.value(),
                    caseMisroutes,
                    caseMissed,
                    caseIn.valueOr0(),
                    caseOut.valueOr0(),
                    microUnits(caseCost.value()),
                    attempts));
        }
        List<EvalReport.WorkerScore> workerScores = new ArrayList<>();
        workers.forEach((w, t) -> workerScores.add(new EvalReport.WorkerScore(
                w,
                knownWorkers.contains(w),
                t[0],
                t[1],
                t[2],
                t[3],
                t[4],
                t[1] == 0 ? null : (double) t[3] / t[1],
                t[0] == 0 ? null : (double) t[2] / t[0])));
        var summary = new EvalReport.Summary(
                suite.cases().size(),
                runs,
                failed,
                routing.value(),
                delegations == 0 ? null : (double) misroutes / delegations,
                path.value(),
                consistency.valueOr0(),
                facts.value(),
                delegations,
                misroutes,
                missedTotal,
                inTokens.valueOr0(),
                outTokens.valueOr0(),
                microUnits(cost.value()));
        return new EvalReport(suite.name(), suite.agent(), suite.repeat(), summary, workerScores, cases);
    }

    static EvalReport.RunScore scoreRun(EvalSuite.Case c, Observation o) {
        Boolean routingCorrect = null;
        List<String> misrouted = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        if (c.workers() != null) {
            Set<String> expected = new LinkedHashSet<>(c.workers());
            // Every call to a worker the case does not expect is a misroute, and so is every call to
            // a name that is no worker at all (seed 004 counts both).
            for (String w : o.delegated()) {
                if (!expected.contains(w)) {
                    misrouted.add(w);
                }
            }
            misrouted.addAll(o.refused());
            for (String w : expected) {
                if (!o.delegated().contains(w)) {
                    missed.add(w);
                }
            }
            routingCorrect = misrouted.isEmpty() && missed.isEmpty();
        }
        Boolean pathCorrect = c.path().isEmpty() ? null : o.refused().isEmpty() && follows(o.delegated(), c.path());
        Boolean tasksCorrect = null;
        List<String> taskMisses = new ArrayList<>();
        if (!c.tasks().isEmpty()) {
            c.tasks().forEach((worker, phrases) -> {
                String sent = String.join("\n", o.tasks().getOrDefault(worker, List.of()))
                        .toLowerCase(Locale.ROOT);
                for (String phrase : phrases) {
                    if (!sent.contains(phrase.toLowerCase(Locale.ROOT))) {
                        taskMisses.add(worker + ": " + phrase);
                    }
                }
            });
            tasksCorrect = taskMisses.isEmpty();
        }
        Double factRecall = null;
        if (!c.facts().isEmpty()) {
            String answer = o.answer() == null ? "" : o.answer().toLowerCase(Locale.ROOT);
            long found = c.facts().stream()
                    .filter(f -> answer.contains(f.toLowerCase(Locale.ROOT)))
                    .count();
            factRecall = (double) found / c.facts().size();
        }
        return new EvalReport.RunScore(
                o.runId(),
                o.status(),
                o.delegated(),
                o.refused(),
                routingCorrect,
                pathCorrect,
                tasksCorrect,
                taskMisses,
                factRecall,
                misrouted,
                missed,
                o.inputTokens(),
                o.outputTokens(),
                o.cost(),
                o.durationMs());
    }

    /**
     * Whether a run decomposed the case as expected: in the expected order (path) and with tasks
     * that say what each worker was expected to be told; null when the case judges neither.
     */
    static @Nullable Boolean decomposed(EvalReport.RunScore s) {
        if (s.pathCorrect() == null) {
            return s.tasksCorrect();
        }
        return s.tasksCorrect() == null ? s.pathCorrect() : s.pathCorrect() && s.tasksCorrect();
    }

    /** Whether the calls, in order, are the steps in order, each step's workers in any order among themselves. */
    static boolean follows(List<String> calls, List<List<String>> steps) {
        int at = 0;
        for (List<String> step : steps) {
            if (at + step.size() > calls.size()) {
                return false;
            }
            List<String> taken = new ArrayList<>(calls.subList(at, at + step.size()));
            List<String> wanted = new ArrayList<>(step);
            taken.sort(null);
            wanted.sort(null);
            if (!taken.equals(wanted)) {
                return false;
            }
            at += step.size();
        }
        return at == calls.size();
    }

    /** A share of yes among judged items; unjudged (null) items do not count. */
    private static final class Ratio {
        private int yes;
        private int judged;

        void add(@Nullable Boolean b) {
            if (b != null) {
                judged++;
                yes += b ? 1 : 0;
            }
        }

        void addAll(Ratio other) {
            yes += other.yes;
            judged += other.judged;
        }

        @Nullable
        Double value() {
            return judged == 0 ? null : (double) yes / judged;
        }
    }

    /** A mean of costs, kept to the currency's micro-unit like every cost. */
    private static @Nullable Double microUnits(@Nullable Double cost) {
        return cost == null ? null : dev.cadre.agent.model.Costs.round(cost);
    }

    private static final class Mean {
        private double sum;
        private int n;

        void add(@Nullable Double d) {
            if (d != null) {
                sum += d;
                n++;
            }
        }

        @Nullable
        Double value() {
            return n == 0 ? null : sum / n;
        }

        double valueOr0() {
            return n == 0 ? 0 : sum / n;
        }
    }
}
