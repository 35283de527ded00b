package dev.cadre.platform.tools.kubernetes;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A deployment's revisions, read the way {@code kubectl rollout history} does: from the ReplicaSets it
 * owns and their {@code deployment.kubernetes.io/revision} annotation.
 */
final class Rollouts {

    /** One revision: its ReplicaSet, number and ready pods. */
    record Revision(int number, ReplicaSet replicaSet) {
        int ready() {
            return replicaSet.getStatus() == null
                    ? 0
                    : Views.orZero(replicaSet.getStatus().getReadyReplicas());
        }

        PodTemplateSpec template() {
            return replicaSet.getSpec().getTemplate();
        }
    }

    private Rollouts() {}

    /** The deployment's revisions, oldest first (ReplicaSets it owns, by uid; by name prefix when uids are absent). */
    static List<Revision> revisions(Deployment d, List<ReplicaSet> inNamespace) {
        String uid = d.getMetadata().getUid();
        List<Revision> out = new ArrayList<>();
        for (ReplicaSet rs : inNamespace) {
            boolean owned = rs.getMetadata().getOwnerReferences() != null
                    && rs.getMetadata().getOwnerReferences().stream()
                            .anyMatch(o -> "Deployment".equals(o.getKind())
                                    && d.getMetadata().getName().equals(o.getName())
                                    && (uid == null || o.getUid() == null || uid.equals(o.getUid())));
            if (owned && rs.getSpec() != null && rs.getSpec().getTemplate() != null) {
                out.add(new Revision(Views.revision(rs), rs));
            }
        }
        out.sort(Comparator.comparingInt(Revision::number));
        return out;
    }

    /** The deployment's current revision: its annotation, else the newest ReplicaSet's. */
    static int current(Deployment d, List<Revision> revisions) {
        int annotated = Views.revision(d);
        if (annotated > 0) {
            return annotated;
        }
        return revisions.isEmpty() ? 0 : revisions.getLast().number();
    }

    /**
     * The newest revision before the current one whose pods were healthy: during a failed rolling update
     * the old ReplicaSet keeps its ready pods, so "still has ready pods" is the evidence; without any,
     * the previous revision, flagged as assumed.
     */
    static @Nullable Healthy lastHealthy(int current, List<Revision> revisions) {
        Revision previous = null;
        for (Revision r : revisions.reversed()) {
            if (r.number() >= current) {
                continue;
            }
            if (previous == null) {
                previous = r;
            }
            if (r.ready() > 0) {
                return new Healthy(r.number(), r.ready() + " ready pod(s) still run revision " + r.number());
            }
        }
        return previous == null
                ? null
                : new Healthy(
                        previous.number(),
                        "no older revision has ready pods; revision " + previous.number()
                                + " is the previous one (assumed healthy)");
    }

    /** The revision to roll back to and why it was chosen. */
    record Healthy(int revision, String evidence) {}

    static Map<Integer, Revision> byNumber(List<Revision> revisions) {
        Map<Integer, Revision> m = new HashMap<>();
        revisions.forEach(r -> m.put(r.number(), r));
        return m;
    }
}
