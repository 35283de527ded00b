package dev.cadre.platform.agents;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.ReviewPolicy;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** Every tool an agent could be given: built-in, from MCP servers, remote agents, and workers. */
@RestController
@RequestMapping("/api/v1/tools")
class ToolController {

    private final AgentCatalog catalog;
    private final List<ToolProvider> providers;

    ToolController(AgentCatalog catalog, List<ToolProvider> providers) {
        this.catalog = catalog;
        this.providers = providers;
    }

    /**
     * One tool. {@code kind}: builtin, mcp, remote_agent or worker; {@code risk}: auto, suggest or
     * approve; {@code schema}: the arguments as the model is shown them; {@code usedBy}: the agents
     * whose YAML names it (for a worker: the agents that may delegate to it).
     */
    record ToolView(String name, String kind, String description, String risk, JsonNode schema, List<String> usedBy) {}

    @Operation(
            summary = "List every tool an agent could be given",
            description = "Built-in tools, the tools of the configured MCP servers, remote agents and worker agents"
                    + " (an agent's workers appear to its model as tools), each with its risk and the argument"
                    + " schema the model is shown. Internal worker agents are listed for admins only.")
    @GetMapping
    List<ToolView> list(@AuthenticationPrincipal @Nullable CadrePrincipal caller) {
        List<ToolView> out = new ArrayList<>();
        boolean admin = caller != null && caller.role() == Role.ADMIN;
        for (ToolProvider provider : providers) {
            for (Tool tool : provider.tools()) {
                out.add(new ToolView(
                        tool.name(),
                        provider.kind(),
                        tool.description(),
                        risk(tool.risk()),
                        tool.parametersSchema(),
                        usedBy(tool.name(), admin)));
            }
        }
        for (AgentSpec worker : catalog.specs()) {
            List<String> parents = catalog.specs().stream()
                    .filter(s -> s.workers().contains(worker.name()))
                    .filter(s -> admin || !catalog.isInternal(s.name()))
                    .map(AgentSpec::name)
                    .toList();
            if (parents.isEmpty() || (catalog.isInternal(worker.name()) && !admin)) {
                continue;
            }
            out.add(new ToolView(
                    worker.name(),
                    "worker",
                    worker.description(),
                    risk(worker.review() == ReviewPolicy.APPROVE_BEFORE_START ? Risk.APPROVE : Risk.AUTO),
                    AgentTree.workerToolSchema(),
                    parents));
        }
        return out;
    }

    private List<String> usedBy(String tool, boolean admin) {
        return catalog.specs().stream()
                .filter(s -> s.tools().contains(tool))
                .filter(s -> admin || !catalog.isInternal(s.name()))
                .map(AgentSpec::name)
                .toList();
    }

    private static String risk(Risk risk) {
        return risk.name().toLowerCase(Locale.ROOT);
    }
}
