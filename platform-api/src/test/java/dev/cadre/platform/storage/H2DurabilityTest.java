package dev.cadre.platform.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class H2DurabilityTest {

    @Test
    void fileDatabase_getsWriteDelayZero() {
        assertThat(H2Durability.durableUrl("jdbc:h2:file:./data/cadre;MODE=PostgreSQL;AUTO_SERVER=FALSE"))
                .isEqualTo("jdbc:h2:file:./data/cadre;MODE=PostgreSQL;AUTO_SERVER=FALSE;WRITE_DELAY=0");
        assertThat(H2Durability.durableUrl("jdbc:h2:./data/cadre")).isEqualTo("jdbc:h2:./data/cadre;WRITE_DELAY=0");
        assertThat(H2Durability.durableUrl("JDBC:H2:tcp://db/cadre;"))
                .isEqualTo("JDBC:H2:tcp://db/cadre;WRITE_DELAY=0");
    }

    @Test
    void writeDelayZero_isKept() {
        String url = "jdbc:h2:file:./data/cadre;write_delay = 0;MODE=PostgreSQL";
        assertThat(H2Durability.durableUrl(url)).isEqualTo(url);
    }

    @Test
    void aWriteDelay_isRefusedWithWhatToDo() {
        assertThatThrownBy(() -> H2Durability.durableUrl("jdbc:h2:file:./data/cadre;WRITE_DELAY=500"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WRITE_DELAY=500")
                .hasMessageContaining("Remove WRITE_DELAY from the URL");
    }

    @Test
    void otherDatabases_andH2InMemory_areUnchanged() {
        assertThat(H2Durability.durableUrl("jdbc:postgresql://127.0.0.1:5432/test"))
                .isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
        assertThat(H2Durability.durableUrl("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1"))
                .isEqualTo("jdbc:h2:mem:test;DB_CLOSE_DELAY=-1");
        assertThat(H2Durability.durableUrl(null)).isNull();
    }
}
