/**
 * The Kubernetes toolset: read tools ({@code k8s_get}, {@code k8s_describe}, {@code k8s_logs},
 * {@code k8s_rollout_history}) and approved write tools ({@code k8s_rollout_restart},
 * {@code k8s_rollout_undo}, {@code k8s_scale}, {@code k8s_delete_pod}) on the fabric8 client, each
 * reaching only the namespaces the calling agent's YAML lists. See docs/kubernetes.md.
 */
@NullMarked
package dev.cadre.platform.tools.kubernetes;

import org.jspecify.annotations.NullMarked;
