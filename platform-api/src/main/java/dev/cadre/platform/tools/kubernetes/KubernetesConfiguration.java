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
import dev.cadre.platform.incidents.RemediationOutcome;
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
import tools.jackson.databind.JsonNode;
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
        RemediationOutcomes outcomes = (ctx, action, arguments, verdict, summary, evidence) -> onIncident(
                incidents.getObject(), approvals.getIfAvailable(), ctx, action, arguments, verdict, summary, evidence);
        tools.addAll(KubernetesWriteTools.all(access, json, clock, outcomes, Thread::sleep));
        List<Tool> all = List.copyOf(tools);
        return () -> all;
    }

    /**
     * The verified outcome of a rollout on the incident of the run that made it (its remediations, with
     * the bound arguments, who approved them, the verdict and its evidence; ACTION_VERIFIED on the
     * timeline). Only a SUCCEEDED verdict lets the incident be resolved; the incident service escalates
     * on any other.
     */
    private static void onIncident(
            IncidentService incidents,
            @Nullable ApprovalService approvals,
            ToolContext ctx,
            String action,
            JsonNode arguments,
            String verdict,
            String summary,
            JsonNode evidence) {
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
        incidents.recordRemediationOutcome(
                incident.get().id(),
                ctx.callId(),
                action,
                arguments,
                new RemediationOutcome(RemediationOutcome.Verdict.valueOf(verdict), summary, evidence, approver),
                Writer.agent(ctx.agent(), ctx.runId()));
    }
}
