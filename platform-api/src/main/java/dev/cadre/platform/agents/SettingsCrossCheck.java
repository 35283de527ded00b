package dev.cadre.platform.agents;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.PropertyResolver;

/**
 * Checks at start-up every setting that names an agent or workflow against the catalogue, so a
 * configuration that cannot work stops the start with the setting's name instead of failing each
 * request later (a default A2A agent that is not exposed over A2A refused every message without
 * {@code metadata.agent}).
 *
 * <p>A setting left at its default names the shipped team's agent; with another agents directory
 * that agent may be missing, and the feature then simply has no default (logged). A setting given
 * explicitly (property, environment variable, command line) must name something that works.
 */
public final class SettingsCrossCheck {

    private static final Logger log = LoggerFactory.getLogger(SettingsCrossCheck.class);

    public static final String A2A_DEFAULT_AGENT = "cadre.a2a.default-agent";
    public static final String ALERTMANAGER_AGENT = "cadre.integrations.alertmanager.agent";
    public static final String ALERTMANAGER_KUBERNETES_AGENT = "cadre.integrations.alertmanager.kubernetes-agent";
    public static final String ALERTMANAGER_ROUTES = "cadre.integrations.alertmanager.routes";

    /** The defaults, as the settings' readers declare them. */
    static final String DEFAULT_A2A_AGENT = "ops-orchestrator";

    static final String DEFAULT_ALERTMANAGER_AGENT = "ops-orchestrator";
    static final String DEFAULT_KUBERNETES_AGENT = "k8s-orchestrator";

    private SettingsCrossCheck() {}

    /** Fails with every problem (one line per setting) when a setting names what cannot be used. */
    public static void verify(PropertyResolver settings, AgentCatalog catalog) {
        List<String> problems = problems(settings, catalog);
        if (!problems.isEmpty()) {
            throw new AgentConfigException(problems);
        }
    }

    /** The problems, each naming its setting and what it named; empty when everything resolves. */
    public static List<String> problems(PropertyResolver settings, AgentCatalog catalog) {
        List<String> problems = new ArrayList<>();
        String configured = " (configured entry points: " + catalog.entryPoints() + ")";

        String a2a = value(settings, A2A_DEFAULT_AGENT, DEFAULT_A2A_AGENT);
        if (!a2a.isEmpty()) {
            String why = !catalog.runnable(a2a)
                    ? "is not a configured agent or workflow" + configured
                    : catalog.isInternal(a2a)
                            ? "is internal (a worker only) and cannot be started over A2A"
                            : !catalog.exposedOver(a2a, AgentCatalog.Channel.A2A)
                                    ? "is not exposed over A2A (add 'expose: [a2a]' to its YAML); exposed: "
                                            + catalog.exposedOver(AgentCatalog.Channel.A2A)
                                    : null;
            report(problems, settings, A2A_DEFAULT_AGENT, a2a, why, "A2A messages must name their agent");
        }

        String intake = value(settings, ALERTMANAGER_AGENT, DEFAULT_ALERTMANAGER_AGENT);
        report(
                problems,
                settings,
                ALERTMANAGER_AGENT,
                intake,
                intake.isEmpty()
                        ? "is empty: every firing alert needs an agent or workflow to triage it"
                        : startable(catalog, intake, configured),
                "Alertmanager deliveries of firing alerts will fail");

        String k8s = value(settings, ALERTMANAGER_KUBERNETES_AGENT, DEFAULT_KUBERNETES_AGENT);
        if (!k8s.isEmpty()) {
            report(
                    problems,
                    settings,
                    ALERTMANAGER_KUBERNETES_AGENT,
                    k8s,
                    startable(catalog, k8s, configured),
                    "Kubernetes alerts go to " + ALERTMANAGER_AGENT);
        }
        return problems;
    }

    /** Why a run cannot start with {@code name}, or null when it can. */
    private static @org.jspecify.annotations.Nullable String startable(
            AgentCatalog catalog, String name, String configured) {
        if (!catalog.runnable(name)) {
            return "is not a configured agent or workflow" + configured;
        }
        if (catalog.isInternal(name)) {
            return "is internal (a worker only) and cannot start a run" + configured;
        }
        return null;
    }

    /**
     * Adds the problem when the setting was given explicitly; logs it when it is the default, which
     * an agents directory without the shipped team is allowed not to serve.
     */
    private static void report(
            List<String> problems,
            PropertyResolver settings,
            String setting,
            String value,
            @org.jspecify.annotations.Nullable String why,
            String consequence) {
        if (why == null) {
            return;
        }
        if (settings.containsProperty(setting)) {
            problems.add(setting + ": '" + value + "' " + why);
        } else {
            log.info("{} (default '{}') {}; {}", setting, value, why, consequence);
        }
    }

    private static String value(PropertyResolver settings, String setting, String fallback) {
        return settings.getProperty(setting, fallback).strip();
    }
}
