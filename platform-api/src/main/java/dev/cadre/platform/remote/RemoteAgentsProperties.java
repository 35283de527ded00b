package dev.cadre.platform.remote;

import dev.cadre.agent.tool.Risk;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Agents of other A2A servers (another Cadre, or any A2A 0.3 JSON-RPC agent) that local agents may
 * delegate to as the tool {@code a2a_<name>}.
 */
@ConfigurationProperties("cadre.remote-agents")
public record RemoteAgentsProperties(@Nullable Map<String, Remote> agents) {

    public RemoteAgentsProperties {
        agents = agents == null ? Map.of() : Map.copyOf(agents);
    }

    /**
     * One remote agent.
     *
     * @param url the JSON-RPC endpoint, e.g. {@code https://cadre-eu.example.com/a2a}
     * @param skill the skill (for Cadre: agent name) to address; the server's default when absent
     * @param description what the local model reads to decide whether to delegate
     * @param apiKey sent as {@code Authorization: Bearer}; never logged
     * @param timeout how long one delegation may take, waiting for humans at the remote end included
     * @param risk how much the delegation may do on its own ({@code SUGGEST} by default: the remote
     *     agent may act)
     */
    public record Remote(
            URI url,
            @Nullable String skill,
            @Nullable String description,
            @Nullable String apiKey,
            @Nullable Duration timeout,
            @Nullable Risk risk) {

        public Remote {
            if (url == null) {
                throw new IllegalArgumentException("cadre.remote-agents.agents.*.url is required");
            }
            timeout = timeout == null ? Duration.ofMinutes(5) : timeout;
            risk = risk == null ? Risk.SUGGEST : risk;
        }
    }
}
