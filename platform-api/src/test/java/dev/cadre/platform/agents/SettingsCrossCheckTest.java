package dev.cadre.platform.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.support.PlatformTest;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Settings that name an agent are checked against the catalogue at start-up: one given explicitly
 * that cannot work stops the start naming the setting; one left at its default that the agents
 * directory does not serve only leaves the feature without a default.
 */
@PlatformTest
class SettingsCrossCheckTest {

    @Autowired
    AgentCatalog catalog;

    private static StandardEnvironment settings(Map<String, Object> values) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("test", values));
        return env;
    }

    @Test
    void a2aDefaultAgent_notExposedOverA2a_stopsTheStart_namingTheSetting() {
        assertThatThrownBy(() ->
                        SettingsCrossCheck.verify(settings(Map.of("cadre.a2a.default-agent", "weather-desk")), catalog))
                .isInstanceOfSatisfying(
                        AgentConfigException.class,
                        e -> assertThat(e.problems())
                                .singleElement()
                                .asString()
                                .startsWith("cadre.a2a.default-agent: 'weather-desk' is not exposed over A2A")
                                .contains("expose: [a2a]")
                                .contains("ops-orchestrator"));
    }

    @Test
    void a2aDefaultAgent_unknownOrInternal_isAProblem() {
        assertThat(SettingsCrossCheck.problems(settings(Map.of("cadre.a2a.default-agent", "ghost")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.a2a.default-agent: 'ghost' is not a configured agent or workflow");
        assertThat(SettingsCrossCheck.problems(settings(Map.of("cadre.a2a.default-agent", "cpu-inspector")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.a2a.default-agent: 'cpu-inspector' is internal");
    }

    @Test
    void alertmanagerAgent_unknownInternalOrEmpty_isAProblem() {
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of("cadre.integrations.alertmanager.agent", "ghost")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.integrations.alertmanager.agent: 'ghost' is not a configured agent or workflow");
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of("cadre.integrations.alertmanager.agent", "disk-inspector")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.integrations.alertmanager.agent: 'disk-inspector' is internal");
        assertThat(SettingsCrossCheck.problems(settings(Map.of("cadre.integrations.alertmanager.agent", "")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.integrations.alertmanager.agent: '' is empty");
    }

    @Test
    void kubernetesAgent_unknown_isAProblem_butEmptyTurnsTheRouteOff() {
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of("cadre.integrations.alertmanager.kubernetes-agent", "k8s-ghost")), catalog))
                .singleElement()
                .asString()
                .startsWith("cadre.integrations.alertmanager.kubernetes-agent: 'k8s-ghost' is not a configured agent");
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of("cadre.integrations.alertmanager.kubernetes-agent", "")), catalog))
                .isEmpty();
    }

    @Test
    void everyProblem_isReportedAtOnce() {
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of(
                                "cadre.a2a.default-agent", "ghost-a",
                                "cadre.integrations.alertmanager.agent", "ghost-b",
                                "cadre.integrations.alertmanager.kubernetes-agent", "ghost-c")),
                        catalog))
                .hasSize(3);
    }

    @Test
    void settingsThatResolve_orDefaults_areNoProblem() {
        assertThat(SettingsCrossCheck.problems(
                        settings(Map.of(
                                "cadre.a2a.default-agent", "echoer",
                                "cadre.integrations.alertmanager.agent", "ops-pipeline",
                                "cadre.integrations.alertmanager.kubernetes-agent", "k8s-orchestrator")),
                        catalog))
                .isEmpty();
        assertThat(SettingsCrossCheck.problems(settings(Map.of()), catalog)).isEmpty();
    }

    @Test
    void aDefaultTheCatalogueDoesNotServe_isNoProblem() {
        // An agents directory without the shipped team: the defaults name agents it does not have.
        AgentCatalog none = catalogWithout();
        assertThat(SettingsCrossCheck.problems(settings(Map.of()), none)).isEmpty();
        assertThat(SettingsCrossCheck.problems(settings(Map.of("cadre.a2a.default-agent", "ops-orchestrator")), none))
                .singleElement()
                .asString()
                .startsWith("cadre.a2a.default-agent: 'ops-orchestrator' is not a configured agent or workflow");
    }

    private AgentCatalog catalogWithout() {
        return catalogLoader.load(java.util.List.of("classpath:test-agents/test-team.yaml"));
    }

    @Autowired
    TeamLoader catalogLoader;
}
