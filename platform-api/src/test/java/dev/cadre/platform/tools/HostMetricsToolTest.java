package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.workflow.Finding;
import dev.cadre.agent.workflow.FindingsText;
import org.junit.jupiter.api.Test;
import oshi.SystemInfo;
import tools.jackson.databind.JsonNode;

/** The real numbers of this machine through OSHI, with findings by threshold. */
class HostMetricsToolTest {

    @Test
    void measuresCpuMemoryAndDisk_withStandardFindings() throws Exception {
        var limits = new OpsToolsProperties.HostMetrics(null, null, null, null, 0.0, 0.0, 100L);
        HostMetricsTool tool = new HostMetricsTool(new SystemInfo(), limits, JSON);
        String out = tool.execute(args("{}"), ctx("r", "c"));
        JsonNode r = JSON.readTree(out);
        assertThat(r.get("cpu").get("logicalCores").asInt()).isPositive();
        assertThat(r.get("cpu").get("utilisation").asDouble()).isBetween(0.0, 1.0);
        assertThat(r.get("memory").get("totalBytes").asLong()).isPositive();
        assertThat(r.get("disks").size()).isPositive();
        // disk thresholds of 0: every file system is "critical", the others follow the defaults
        assertThat(FindingsText.extract(out))
                .filteredOn(f -> f.category().equals("disk"))
                .extracting(Finding::severity)
                .containsOnly(dev.cadre.agent.workflow.Severity.CRITICAL);
        JsonNode cpuOnly = JSON.readTree(tool.execute(args("{\"resource\":\"cpu\"}"), ctx("r", "c2")));
        assertThat(cpuOnly.has("memory")).isFalse();
        assertThat(cpuOnly.get("findings").size()).isEqualTo(1);
    }
}
