package dev.cadre.platform.agents;

import dev.cadre.agent.AgentSpec;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.Role;
import dev.cadre.platform.web.ApiProblem;
import io.swagger.v3.oas.annotations.Operation;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The configured agents, with how they have been doing. */
@RestController
@RequestMapping("/api/v1/agents")
class AgentController {

    private final AgentCatalog catalog;
    private final AgentRunHistory history;

    AgentController(AgentCatalog catalog, AgentRunHistory history) {
        this.catalog = catalog;
        this.history = history;
    }

    record BudgetView(int maxIterations, long maxTokens, long timeoutSeconds) {}

    record ToolView(String name, String description, String risk) {}

    record StatsView(long runs, long completed, long failed, double completionRate, double averageTokens) {}

    record AgentView(
            String name,
            String description,
            String instructions,
            String model,
            List<ToolView> tools,
            List<String> workers,
            BudgetView budget,
            String review,
            int maxDepth,
            String source,
            StatsView stats,
            boolean internal) {}

    /** Internal agents (workers only) are listed for admins; to anyone else they do not exist. */
    @Operation(summary = "List the agents")
    @GetMapping
    List<AgentView> list(@AuthenticationPrincipal CadrePrincipal caller) {
        return catalog.specs().stream()
                .filter(s -> visible(s.name(), caller))
                .map(this::view)
                .toList();
    }

    @Operation(summary = "Get one agent")
    @GetMapping("/{name}")
    AgentView get(@PathVariable String name, @AuthenticationPrincipal CadrePrincipal caller) {
        return view(catalog.find(name)
                .filter(s -> visible(s.name(), caller))
                .orElseThrow(() -> ApiProblem.notFound("agent", name)));
    }

    private boolean visible(String name, @Nullable CadrePrincipal caller) {
        return !catalog.isInternal(name) || (caller != null && caller.role() == Role.ADMIN);
    }

    private AgentView view(AgentSpec s) {
        List<ToolView> tools = s.tools().stream()
                .map(t -> {
                    var tool = catalog.tools().find(t);
                    return new ToolView(
                            t,
                            tool == null ? "" : tool.description(),
                            tool == null ? "auto" : tool.risk().name().toLowerCase(Locale.ROOT));
                })
                .toList();
        return new AgentView(
                s.name(),
                s.description(),
                s.instructions(),
                s.model().toString(),
                tools,
                s.workers(),
                new BudgetView(
                        s.budget().maxIterations(),
                        s.budget().maxTokens(),
                        s.budget().timeout().toSeconds()),
                s.review().name().toLowerCase(Locale.ROOT),
                s.maxDepth(),
                catalog.sourceOf(s.name()),
                stats(s.name()),
                catalog.isInternal(s.name()));
    }

    private StatsView stats(String agent) {
        AgentRunHistory.Outcomes o = history.outcomesOf(agent);
        return new StatsView(
                o.runs(),
                o.completed(),
                o.failed(),
                o.runs() == 0 ? 0 : (double) o.completed() / o.runs(),
                o.averageTokens());
    }
}
