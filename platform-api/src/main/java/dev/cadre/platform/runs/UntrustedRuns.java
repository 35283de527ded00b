package dev.cadre.platform.runs;

import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.RiskPolicy;
import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.agents.Outward;
import dev.cadre.platform.security.ApiKeyService;
import dev.cadre.platform.security.Role;
import java.util.Set;

/**
 * The risk policy of the platform's runs. A run is <em>untrusted</em> when no person submitted it:
 * its submitting key has an integration role ({@code agent}: an A2A peer or MCP client; {@code
 * intake}: Alertmanager) — its input is text an outside system chose. In such a run every {@link
 * Outward} tool (e.g. {@code notify}) is raised to {@code APPROVE}: a person reads what would leave
 * before it leaves. Runs people submit (viewer, operator and admin keys, console sessions) keep each
 * tool's declared risk.
 */
final class UntrustedRuns implements RiskPolicy {

    private final RunStore runs;
    private final ApiKeyService keys;
    private final Set<Role> untrustedRoles;

    UntrustedRuns(RunStore runs, ApiKeyService keys, Set<Role> untrustedRoles) {
        this.runs = runs;
        this.keys = keys;
        this.untrustedRoles = Set.copyOf(untrustedRoles);
    }

    @Override
    public Risk riskOf(Tool tool, String runId) {
        if (!(tool instanceof Outward) || tool.risk() == Risk.APPROVE) {
            return tool.risk();
        }
        return untrusted(runId) ? Risk.APPROVE : tool.risk();
    }

    /** Whether the run was submitted by a key of an untrusted role; a run not found counts as untrusted. */
    boolean untrusted(String runId) {
        return runs.find(runId)
                .map(r -> keys.roleOfKey(r.submittedByKey())
                        // Not a key: the platform itself (e.g. a retry's or an eval's submitter of record).
                        .map(untrustedRoles::contains)
                        .orElse(false))
                .orElse(true);
    }
}
