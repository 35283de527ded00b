package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.ToolOutputBudget;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code cadre.tools.output.*}: the platform's tool output budget; agents override it with
 * {@code toolOutput} in their YAML.
 *
 * @param maxBytes what a model reads of one tool result, in UTF-8 bytes (default 16384, at least 1024)
 * @param tools caps for named tools (e.g. {@code k8s_logs: 32768})
 * @param maxStoredBytes the most kept of one full output (default 8 MiB)
 */
@ConfigurationProperties("cadre.tools.output")
record ToolOutputProperties(
        @Nullable Integer maxBytes,
        @Nullable Map<String, Integer> tools,
        @Nullable Integer maxStoredBytes) {

    ToolOutputBudget budget() {
        ToolOutputBudget d = ToolOutputBudget.DEFAULT;
        return new ToolOutputBudget(
                maxBytes == null ? d.maxBytes() : maxBytes,
                tools == null ? Map.of() : tools,
                maxStoredBytes == null ? d.maxStoredBytes() : maxStoredBytes);
    }
}
