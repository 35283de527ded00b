package dev.cadre.platform.agents;

import dev.cadre.agent.workflow.Workflow;
import dev.cadre.platform.security.CadrePrincipal;
import dev.cadre.platform.security.Role;
import dev.cadre.platform.web.ApiProblem;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** The declared workflows: what the console's submit page offers beside the agents. */
@RestController
@RequestMapping("/api/v1/workflows")
class WorkflowController {

    private final AgentCatalog catalog;

    WorkflowController(AgentCatalog catalog) {
        this.catalog = catalog;
    }

    /** A workflow as callers see it: its shape and the agents its steps run. */
    record WorkflowView(
            String name, String description, String type, List<String> agents, boolean internal, String source) {}

    @GetMapping
    List<WorkflowView> list(@AuthenticationPrincipal CadrePrincipal caller) {
        return catalog.workflows().stream()
                .filter(w -> visible(w, caller))
                .map(WorkflowController::view)
                .toList();
    }

    @GetMapping("/{name}")
    WorkflowView get(@PathVariable String name, @AuthenticationPrincipal CadrePrincipal caller) {
        return view(catalog.workflow(name)
                .filter(w -> visible(w, caller))
                .orElseThrow(() -> ApiProblem.notFound("workflow", name)));
    }

    private static boolean visible(DeclaredWorkflow w, @Nullable CadrePrincipal caller) {
        return !w.internal() || (caller != null && caller.role() == Role.ADMIN);
    }

    private static WorkflowView view(DeclaredWorkflow w) {
        Set<String> agents = new LinkedHashSet<>();
        collect(w.workflow(), agents);
        return new WorkflowView(w.name(), w.description(), w.type(), new ArrayList<>(agents), w.internal(), w.source());
    }

    private static void collect(Workflow w, Set<String> out) {
        switch (w) {
            case Workflow.AgentStep a -> out.add(a.agent());
            case Workflow.Sequence s -> s.steps().forEach(step -> collect(step, out));
            case Workflow.MapReduce m -> out.addAll(m.agents());
            case Workflow.FanOut f -> out.add(f.agent());
            case Workflow.Debate d -> {
                out.addAll(d.participants());
                if (d.judge() != null) {
                    out.add(d.judge());
                }
            }
            case Workflow.Split s -> out.add(s.agent());
            case Workflow.Handoff h -> out.addAll(h.agents());
        }
    }
}
