package dev.cadre.platform.a2a;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.cadre.agent.AgentSpec;
import dev.cadre.platform.agents.AgentCatalog;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * The public A2A Agent Card. One card serves clients of both protocol versions: the 0.3 fields
 * ({@code url}, {@code preferredTransport}, {@code protocolVersion}, {@code security}, typed security
 * schemes) that the 0.3 SDK requires, and the 1.0 ones ({@code supportedInterfaces} with
 * {@code protocolBinding} and {@code protocolVersion}, {@code securityRequirements}, member-named
 * security schemes). Each configured agent is a skill; a message names one in its metadata.
 */
@RestController
class AgentCardController {

    static final String PATH = "/.well-known/agent-card.json";

    private final AgentCatalog catalog;
    private final A2aSettings settings;

    AgentCardController(AgentCatalog catalog, A2aSettings settings) {
        this.catalog = catalog;
        this.settings = settings;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record AgentCard(
            String name,
            String description,
            String url,
            String version,
            String protocolVersion,
            String preferredTransport,
            List<Interface> supportedInterfaces,
            List<LegacyInterface> additionalInterfaces,
            Provider provider,
            Capabilities capabilities,
            List<String> defaultInputModes,
            List<String> defaultOutputModes,
            List<Skill> skills,
            boolean supportsAuthenticatedExtendedCard,
            Map<String, SecurityScheme> securitySchemes,
            List<Map<String, List<String>>> security,
            List<SecurityRequirement> securityRequirements) {}

    /** A 1.0 interface. */
    record Interface(String url, String protocolBinding, String protocolVersion) {}

    /** A 0.3 interface. */
    record LegacyInterface(String transport, String url) {}

    record Provider(String organization, String url) {}

    record Capabilities(
            boolean streaming, boolean pushNotifications, boolean stateTransitionHistory, boolean extendedAgentCard) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Skill(
            String id,
            String name,
            String description,
            List<String> tags,
            @Nullable List<String> examples,
            List<String> inputModes,
            List<String> outputModes) {}

    /**
     * A scheme in both shapes: 0.3 discriminates by {@code type}, 1.0 by the member name; each
     * version's parser ignores the other's members.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record SecurityScheme(
            String type,
            String description,
            @Nullable String scheme,
            @Nullable String in,
            @Nullable String name,
            @Nullable HttpAuth httpAuthSecurityScheme,
            @Nullable ApiKey apiKeySecurityScheme) {}

    record HttpAuth(String scheme, String description) {}

    record ApiKey(String location, String name, String description) {}

    record SecurityRequirement(Map<String, ScopeList> schemes) {}

    record ScopeList(List<String> list) {}

    @Operation(summary = "The A2A Agent Card")
    @SecurityRequirements
    @GetMapping(value = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    ResponseEntity<AgentCard> card(HttpServletRequest request) {
        String base = settings.publicUrl() != null
                ? settings.publicUrl()
                : ServletUriComponentsBuilder.fromContextPath(request).build().toUriString();
        String endpoint = base + "/a2a";
        String bearerText = "A Cadre API key with role agent (or operator): 'Authorization: Bearer <key>'";
        String headerText = "A Cadre API key with role agent (or operator) in the X-API-Key header";
        Map<String, SecurityScheme> schemes = new LinkedHashMap<>();
        schemes.put(
                "bearer",
                new SecurityScheme("http", bearerText, "bearer", null, null, new HttpAuth("Bearer", bearerText), null));
        schemes.put(
                "apiKey",
                new SecurityScheme(
                        "apiKey",
                        headerText,
                        null,
                        "header",
                        "X-API-Key",
                        null,
                        new ApiKey("header", "X-API-Key", headerText)));
        AgentCard card = new AgentCard(
                "Cadre",
                "Cadre, a self-hosted multi-agent ops platform. Each skill is one of its configured agents: name it"
                        + " in the message metadata as 'agent' (default: '" + settings.defaultAgent() + "'). A task is"
                        + " a durable Cadre run; it shows input-required while a human must approve an action in Cadre.",
                endpoint,
                settings.version(),
                "0.3.0",
                "JSONRPC",
                List.of(new Interface(endpoint, "JSONRPC", "1.0"), new Interface(endpoint, "JSONRPC", "0.3")),
                List.of(new LegacyInterface("JSONRPC", endpoint)),
                new Provider("Cadre", base),
                new Capabilities(true, false, false, false),
                List.of("text/plain"),
                List.of("text/plain"),
                skills(),
                false,
                schemes,
                List.of(Map.of("bearer", List.of()), Map.of("apiKey", List.of())),
                List.of(
                        new SecurityRequirement(Map.of("bearer", new ScopeList(List.of()))),
                        new SecurityRequirement(Map.of("apiKey", new ScopeList(List.of())))));
        // A card whose URL came from this request's Host header must not be cached for others: a
        // shared cache would hand every client the endpoint an attacker's Host header named.
        CacheControl cache = settings.publicUrl() != null
                ? CacheControl.maxAge(Duration.ofMinutes(5)).cachePublic()
                : CacheControl.noStore();
        return ResponseEntity.ok().cacheControl(cache).body(card);
    }

    private List<Skill> skills() {
        List<AgentSpec> specs = new ArrayList<>(catalog.specs());
        // Internal agents are workers and steps only (seed 004's entry-only gateway): no skill of theirs.
        specs.removeIf(s -> catalog.isInternal(s.name()));
        // Only what a YAML exposes over A2A is a skill: a peer reaches nothing it was not given.
        specs.removeIf(s -> !catalog.exposedOver(s.name(), AgentCatalog.Channel.A2A));
        // The default agent first: a client that just takes the first skill gets what a message without one gets.
        specs.sort(Comparator.comparing((AgentSpec s) -> !s.name().equals(settings.defaultAgent())));
        List<Skill> skills = specs.stream()
                .map(s -> {
                    List<String> tags = new ArrayList<>();
                    tags.add("cadre");
                    tags.add(s.workers().isEmpty() ? "agent" : "orchestrator");
                    if (s.name().equals(settings.defaultAgent())) {
                        tags.add("default");
                    }
                    tags.addAll(s.tools());
                    return new Skill(
                            s.name(),
                            s.name(),
                            s.description().strip(),
                            tags,
                            null,
                            List.of("text/plain"),
                            List.of("text/plain"));
                })
                .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
        // Declared workflows are skills too: a message names one in its metadata like an agent.
        for (var w : catalog.workflows()) {
            if (catalog.exposedOver(w.name(), AgentCatalog.Channel.A2A)) {
                skills.add(new Skill(
                        w.name(),
                        w.name(),
                        w.description().strip(),
                        List.of("cadre", "workflow", w.type()),
                        null,
                        List.of("text/plain"),
                        List.of("text/plain")));
            }
        }
        return skills;
    }
}
