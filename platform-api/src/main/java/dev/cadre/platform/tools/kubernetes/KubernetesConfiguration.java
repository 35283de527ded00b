package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.memory.Writer;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.approvals.ApprovalRecord;
import dev.cadre.platform.approvals.ApprovalService;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/** The Kubernetes tools agents may be given by name; see docs/kubernetes.md. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(KubernetesProperties.class)
class KubernetesConfiguration {

    private static final Logger log = LoggerFactory.getLogger(KubernetesConfiguration.class);

    @Bean(destroyMethod = "close")
    KubernetesAccess kubernetesAccess(KubernetesProperties config, ObjectProvider<AgentCatalog> catalog) {
        // The catalog is built from the tools, so an agent's reach is looked up when a tool runs.
        KubernetesAccess access =
                new KubernetesAccess(config, agent -> catalog.getObject().kubernetesNamespaces(agent));
        log.info(
                config.configured()
                        ? "Kubernetes tools reach the cluster of {}"
                        : "Kubernetes tools: {} is configured (cadre.tools.kubernetes.*); they will say so",
                config.describe());
        return access;
    }

    @Bean
    ToolProvider kubernetesTools(
            KubernetesAccess access,
            JsonMapper json,
            Clock clock,
            ObjectProvider<IncidentService> incidents,
            ObjectProvider<ApprovalService> approvals) {
        List<Tool> tools = new ArrayList<>(KubernetesReadTools.all(access, json, clock));
        RemediationOutcomes outcomes = (ctx, action, arguments, verdict, summary, evidence) ->
                onIncident(incidents.getObject(), approvals.getIfAvailable(), ctx, action, verdict, summary);
        tools.addAll(KubernetesWriteTools.all(access, json, clock, outcomes, Thread::sleep));
        List<Tool> all = List.copyOf(tools);
        return () -> all;
    }

    /**
     * The verified outcome of a rollout on the incident of the run that made it, with who approved it.
     * Kept behind this one method until the incident service records remediation outcomes itself: for
     * now a timeline note written at the version read (retried on a concurrent write).
     */
    private static void onIncident(
            IncidentService incidents,
            @Nullable ApprovalService approvals,
            ToolContext ctx,
            String action,
            String verdict,
            String summary) {
        Optional<Incident> incident = incidents.forRun(ctx.runId());
        if (incident.isEmpty()) {
            return;
        }
        String approver = approvals == null
                ? null
                : approvals
                        .decisionOf(ctx.runId(), ctx.sessionId(), ctx.callId())
                        .map(ApprovalRecord::decidedBy)
                        .orElse(null);
        String note = action + " verified " + verdict + (approver == null ? "" : " (approved by " + approver + ")")
                + ": " + summary;
        Writer writer = Writer.agent(ctx.agent(), ctx.runId());
        for (int attempt = 0; attempt < 3; attempt++) {
            Optional<Incident> now = incidents.get(incident.get().id());
            if (now.isEmpty()) {
                return;
            }
            var written = incidents.update(now.get().id(), now.get().version(), null, null, note, writer);
            if (!(written instanceof IncidentService.Update.Conflict)) {
                return;
            }
        }
        log.warn(
                "Could not note the verified outcome of {} on incident {}: it kept changing",
                action,
                incident.get().id());
    }
}
