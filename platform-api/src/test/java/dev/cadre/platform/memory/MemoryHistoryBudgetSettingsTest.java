package dev.cadre.platform.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.memory.MemoryHistoryBudget;
import org.junit.jupiter.api.Test;

/** {@code cadre.memory.history.*}: sizes in binary units, and a setting that cannot work named at start. */
class MemoryHistoryBudgetSettingsTest {

    @Test
    void theDefaultsAndSizes_areRead() {
        assertThat(MemoryConfiguration.historyBudget(1000, "16MB")).isEqualTo(new MemoryHistoryBudget(1000, 16L << 20));
        assertThat(MemoryConfiguration.historyBudget(5, "512kb")).isEqualTo(new MemoryHistoryBudget(5, 512L << 10));
    }

    @Test
    void aSettingThatCannotWork_isRefusedNamingIt() {
        assertThatThrownBy(() -> MemoryConfiguration.historyBudget(0, "16MB"))
                .hasMessage("cadre.memory.history.max-versions must be at least 1 (the current version is always"
                        + " kept), was 0");
        assertThatThrownBy(() -> MemoryConfiguration.historyBudget(10, "lots"))
                .hasMessage("cadre.memory.history.max-bytes must be a size such as 16MB or 512KB, was 'lots'");
        assertThatThrownBy(() -> MemoryConfiguration.historyBudget(10, "100B"))
                .hasMessage("cadre.memory.history.max-bytes must be at least 1KB, was '100B'");
    }
}
