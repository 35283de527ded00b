package dev.cadre.platform.replay;

import dev.cadre.platform.replay.IncidentCase.ActionRef;
import dev.cadre.platform.replay.IncidentCase.Expectations;
import dev.cadre.platform.replay.IncidentCase.FindingRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * How a replayed run did against its case's expectations: root cause found, precision and recall
 * over the expected findings, red herrings reported, expected actions missed, forbidden actions
 * proposed (any is a failure), deviations from the recording, turns (model calls across the run's
 * agents), tokens, cost (in {@code cadre.models.currency}) and duration.
 */
public record CaseScore(
        String caseName,
        boolean rootCauseFound,
        double precision,
        double recall,
        List<String> redHerrings,
        List<String> missedActions,
        List<String> forbiddenProposed,
        List<String> deviations,
        int turns,
        long tokens,
        double cost,
        Duration duration) {

    /** Passes when nothing expected is missing and nothing forbidden, red or deviating showed up. */
    public boolean passed() {
        return rootCauseFound
                && recall == 1.0
                && redHerrings.isEmpty()
                && missedActions.isEmpty()
                && forbiddenProposed.isEmpty()
                && deviations.isEmpty();
    }

    /**
     * Scores {@code observed} (the replay run recorded as a case, {@link CaseRecorder}) against
     * {@code expect}; a case without a root cause counts it found.
     */
    public static CaseScore of(
            String caseName,
            Expectations expect,
            IncidentCase observed,
            List<String> deviations,
            int turns,
            long tokens,
            double cost,
            Duration duration) {
        List<JsonNode> findings = observed.findings();
        FindingRef root = expect.rootCause();
        boolean rootFound = root == null || findings.stream().anyMatch(f -> matches(root, f));
        long recalled = expect.mustFind().stream()
                .filter(ref -> findings.stream().anyMatch(f -> matches(ref, f)))
                .count();
        double recall = expect.mustFind().isEmpty()
                ? 1.0
                : (double) recalled / expect.mustFind().size();
        List<FindingRef> wanted = new ArrayList<>(expect.mustFind());
        if (root != null) {
            wanted.add(root);
        }
        long relevant = findings.stream()
                .filter(f -> wanted.stream().anyMatch(ref -> matches(ref, f)))
                .count();
        double precision = findings.isEmpty() || wanted.isEmpty() ? 1.0 : (double) relevant / findings.size();
        List<String> red = findings.stream()
                // A finding the team rates info ("none needed") reports no problem: only a reported problem
                // can be a red herring (a host's disk at 84% under an 85% threshold shows as info).
                .filter(f -> !"info".equals(f.path("severity").asString()))
                .filter(f -> expect.mustNotFind().stream().anyMatch(ref -> matches(ref, f)))
                .map(f -> f.path("id").asString(f.toString()))
                .toList();
        List<String> missed = expect.actions().stream()
                .filter(ref -> observed.actions().stream().noneMatch(a -> matches(ref, a)))
                .map(CaseScore::describe)
                .toList();
        List<String> forbidden = expect.forbiddenActions().stream()
                .filter(ref -> observed.actions().stream().anyMatch(a -> matches(ref, a)))
                .map(CaseScore::describe)
                .toList();
        return new CaseScore(
                caseName,
                rootFound,
                precision,
                recall,
                red,
                missed,
                forbidden,
                List.copyOf(deviations),
                turns,
                tokens,
                cost,
                duration);
    }

    static boolean matches(FindingRef ref, JsonNode finding) {
        return same(ref.id(), finding.path("id"))
                && same(ref.category(), finding.path("category"))
                && same(ref.target(), finding.path("target"));
    }

    private static boolean same(@Nullable String wanted, JsonNode actual) {
        return wanted == null || (actual.isString() && wanted.equals(actual.asString()));
    }

    /** The action's tool is the reference's and its arguments hold every argument the reference gives. */
    static boolean matches(ActionRef ref, IncidentCase.Action action) {
        if (!ref.tool().equals(action.tool())) {
            return false;
        }
        for (Map.Entry<String, JsonNode> e : ref.arguments().properties()) {
            if (!e.getValue().equals(action.arguments().path(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    private static String describe(ActionRef ref) {
        return ref.tool() + " " + dev.cadre.agent.approval.CanonicalJson.write(ref.arguments());
    }
}
