package dev.cadre.agent.tool;

import dev.cadre.agent.model.ToolDefinition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * An immutable set of tools by name. Subagents get {@linkplain #whitelist whitelisted copies}, so a
 * worker cannot even name a tool it was not given (seed 000's isolation by construction).
 */
public final class ToolRegistry {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final ToolRegistry EMPTY = new ToolRegistry(Map.of());

    private final Map<String, Tool> tools;
    private final List<ToolDefinition> definitions;

    private ToolRegistry(Map<String, Tool> tools) {
        this.tools = tools;
        List<ToolDefinition> defs = new ArrayList<>();
        for (Tool tool : tools.values()) {
            defs.add(new ToolDefinition(tool.name(), tool.description(), tool.parametersSchema()));
        }
        this.definitions = List.copyOf(defs);
    }

    /** A registry without tools. */
    public static ToolRegistry empty() {
        return EMPTY;
    }

    /** A registry of these tools; names must be unique. */
    public static ToolRegistry of(Tool... tools) {
        return of(List.of(tools));
    }

    /** A registry of these tools; names must be unique. */
    public static ToolRegistry of(Collection<? extends Tool> tools) {
        Map<String, Tool> byName = new LinkedHashMap<>();
        for (Tool tool : tools) {
            checkName(tool.name());
            JsonSchemas.checkObjectSchema(tool.name(), tool.parametersSchema());
            if (byName.putIfAbsent(tool.name(), tool) != null) {
                throw new IllegalArgumentException("duplicate tool name '" + tool.name() + "'");
            }
        }
        return new ToolRegistry(byName);
    }

    /** A copy holding only the named tools; an unknown name is a configuration error. */
    public ToolRegistry whitelist(Collection<String> names) {
        Map<String, Tool> copy = new LinkedHashMap<>();
        for (String name : names) {
            Tool tool = tools.get(name);
            if (tool == null) {
                throw new IllegalArgumentException("unknown tool '" + name + "' (known: " + tools.keySet() + ")");
            }
            copy.put(name, tool);
        }
        return new ToolRegistry(copy);
    }

    /** This registry plus {@code more}. */
    public ToolRegistry with(Collection<? extends Tool> more) {
        List<Tool> all = new ArrayList<>(tools.values());
        all.addAll(more);
        return of(all);
    }

    /** The tool of that name, or null. */
    public @Nullable Tool find(String name) {
        return tools.get(name);
    }

    /** Whether a tool of that name is here. */
    public boolean contains(String name) {
        return tools.containsKey(name);
    }

    /** The tool names, in registration order. */
    public List<String> names() {
        return List.copyOf(tools.keySet());
    }

    /** What the model is told about these tools, in registration order. */
    public List<ToolDefinition> definitions() {
        return definitions;
    }

    static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "tool name '" + name + "' must be 1-64 letters, digits, '_' or '-' (what model APIs accept)");
        }
    }
}
