package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TeamIdTest {

    @Test
    void dnsLabels_areTeamNames() {
        assertThat(new TeamId("default").name()).isEqualTo("default");
        assertThat(new TeamId("db-oncall").name()).isEqualTo("db-oncall");
        assertThat(new TeamId("a").name()).isEqualTo("a");
        assertThat(new TeamId("9").name()).isEqualTo("9");
        assertThat(new TeamId("a".repeat(63)).name()).hasSize(63);
    }

    @Test
    void otherNames_areRefused_namingTheRule() {
        for (String bad : new String[] {"", "-a", "a-", "Platform", "a_b", "a.b", "a b", "ä", "a".repeat(64)}) {
            assertThatThrownBy(() -> new TeamId(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("team '" + bad + "' is not a team name: use 1 to 63 of a-z, 0-9 and '-', starting"
                            + " and ending with a letter or digit");
            assertThat(TeamId.parse(bad)).as(bad).isEmpty();
        }
        assertThat(TeamId.parse(null)).isEmpty();
    }

    @Test
    void scopes_seeTheirTeamOnly_orAllForThePlatformsOwnWork() {
        TeamScope db = TeamScope.of(new TeamId("db"));
        assertThat(db.includes(new TeamId("db"))).isTrue();
        assertThat(db.includes(TeamId.DEFAULT)).isFalse();
        assertThat(db.team()).contains(new TeamId("db"));

        TeamScope all = TeamScope.allTeams("retention");
        assertThat(all.includes(new TeamId("db"))).isTrue();
        assertThat(all.team()).isEmpty();
    }
}
