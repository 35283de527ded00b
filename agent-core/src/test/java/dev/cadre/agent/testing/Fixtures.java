package dev.cadre.agent.testing;

import dev.cadre.agent.AgentSpec;
import dev.cadre.agent.AgentTree;
import dev.cadre.agent.Budget;
import dev.cadre.agent.model.ModelPort;
import dev.cadre.agent.model.ModelRef;
import dev.cadre.agent.model.ModelRequest;
import dev.cadre.agent.scripted.ScriptedCall;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Small builders that keep the tests about behaviour rather than set-up. */
public final class Fixtures {

    private Fixtures() {}

    public static JsonNode json(String text) {
        return JsonSchemas.parse(text);
    }

    public static ScriptedCall call(String name, String arguments) {
        return new ScriptedCall(null, name, json(arguments));
    }

    public static ScriptedCall delegate(String worker, String task) {
        return new ScriptedCall(null, worker, json("{\"task\":" + quote(task) + "}"));
    }

    public static String quote(String text) {
        return tools.jackson.databind.node.JsonNodeFactory.instance
                .stringNode(text)
                .toString();
    }

    /** A tree whose agents all use one model port. */
    public static AgentTree tree(ToolRegistry tools, ModelPort model, AgentSpec... specs) {
        return AgentTree.build(List.of(specs), tools, ref -> model);
    }

    /** A tree whose agents use the port registered for their model reference. */
    public static AgentTree tree(ToolRegistry tools, Map<ModelRef, ModelPort> models, AgentSpec... specs) {
        return AgentTree.build(List.of(specs), tools, ref -> {
            ModelPort port = models.get(ref);
            if (port == null) {
                throw new IllegalArgumentException("no model " + ref);
            }
            return port;
        });
    }

    /** Everything a model request carried, as one searchable text. */
    public static String textOf(ModelRequest request) {
        return request.messages().toString();
    }

    /** A worker-sized budget; a test that hangs by mistake ends at the timeout instead of the default five minutes. */
    public static final Budget WORKER_BUDGET = new Budget(10, 100_000, Duration.ofSeconds(30));

    /** A tree budget large enough for many workers. */
    public static final Budget ROOT_BUDGET = new Budget(10, 100_000_000, Duration.ofSeconds(60));

    /** An agent with a worker-sized budget. */
    public static AgentSpec.Builder agent(String name) {
        return AgentSpec.builder(name)
                .description("the " + name + " agent")
                .instructions("You are " + name + ".")
                .budget(WORKER_BUDGET);
    }

    /** An agent with a tree budget, to root runs that delegate. */
    public static AgentSpec.Builder root(String name) {
        return agent(name).budget(ROOT_BUDGET);
    }
}
