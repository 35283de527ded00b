package dev.cadre.agent.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FindingsTextTest {

    private static String metrics(String category, String severity) {
        return "{\"host\":\"vm\",\"findings\":[{\"id\":\"" + category + "@vm\",\"severity\":\"" + severity
                + "\",\"category\":\"" + category + "\",\"target\":\"vm\",\"description\":\"" + category
                + " x\",\"suggestion\":\"s\",\"confidence\":0.9}]}";
    }

    private static String workerResult(String inner) {
        return "{\"status\":\"ok\",\"summary\":\"" + inner.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    @Test
    void extract_findsFindingsInQuotedWorkerSummaries_oneLinePerWorker() {
        String text = "Aggregate these:\ncpu-inspector: " + workerResult(metrics("cpu", "critical"))
                + "\nmemory-inspector: " + workerResult(metrics("memory", "info"))
                + "\ndisk-inspector: " + workerResult(metrics("disk", "high"));
        List<Finding> found = FindingsText.extract(text);
        assertThat(found).extracting(Finding::category).containsExactly("cpu", "memory", "disk");
    }

    @Test
    void extract_readsAPlainArrayAndNestedAggregates() {
        assertThat(FindingsText.extract("[{\"severity\":\"low\",\"target\":\"a\",\"description\":\"d\"}]"))
                .hasSize(1);
        assertThat(FindingsText.extract(workerResult(workerResult(metrics("cpu", "critical")))))
                .extracting(Finding::category)
                .containsExactly("cpu");
        assertThat(FindingsText.extract("no json here {oops")).isEmpty();
    }
}
