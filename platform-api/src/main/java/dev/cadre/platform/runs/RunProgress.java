package dev.cadre.platform.runs;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The progress of a plain (not workflow) run, from its root session's events, as the {@code
 * progress} object of its status events: an orchestrator's delegations done out of those it has
 * started ({@code 3 of 5 delegations done}), and otherwise the agent loop's iteration out of its
 * iteration budget ({@code iteration 2 of 4}). Same fields as a workflow's steps ({@code step},
 * {@code of}, {@code fraction}) plus the {@code unit} counted. One per executing run; the run's
 * events arrive one at a time per session, and only the root session's are counted here.
 */
final class RunProgress {

    private final int maxIterations;
    private int delegated;
    private int delegationsDone;

    /** {@code maxIterations}: the root agent's iteration budget (0 when unknown). */
    RunProgress(int maxIterations) {
        this.maxIterations = maxIterations;
    }

    /** The progress of the root loop's status event for iteration {@code n}. */
    synchronized ObjectNode iteration(int n) {
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        p.put("unit", "iteration");
        p.put("step", n);
        if (maxIterations > 0) {
            p.put("of", maxIterations);
            // The iterations before this one are done.
            p.put("fraction", Math.min(1.0, (n - 1) / (double) maxIterations));
        }
        return p;
    }

    /** The root agent delegated to a worker. */
    synchronized void delegated() {
        delegated++;
    }

    /** A root delegation ended: the progress of the status event that says so. */
    synchronized ObjectNode delegationDone() {
        delegationsDone++;
        // A resumed run may see a delegation end whose start came before the resume.
        delegated = Math.max(delegated, delegationsDone);
        ObjectNode p = JsonNodeFactory.instance.objectNode();
        p.put("unit", "delegation");
        p.put("step", delegationsDone);
        p.put("of", delegated);
        p.put("fraction", delegated == 0 ? 1.0 : delegationsDone / (double) delegated);
        return p;
    }

    /** The message of a status event with this progress. */
    static String message(ObjectNode progress) {
        String unit = progress.path("unit").asString("");
        int step = progress.path("step").asInt();
        String of = progress.has("of") ? " of " + progress.path("of").asInt() : "";
        return "delegation".equals(unit) ? step + of + " delegations done" : "iteration " + step + of;
    }
}
