package dev.cadre.platform.agents;

import java.util.List;

/** Agent configuration that cannot be used; the message lists every problem with file, agent and field. */
public class AgentConfigException extends RuntimeException {

    private final List<String> problems;

    public AgentConfigException(List<String> problems) {
        super("Invalid agent configuration:\n  - " + String.join("\n  - ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
