package dev.cadre.platform.retention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.CadreApplication;
import dev.cadre.platform.support.Api;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * The storage budget's setting and its arithmetic: sizes as an operator writes them, a clear error
 * naming {@code cadre.retention.budget} for anything else, a refusal on the embedded database
 * (which cannot tell table sizes), and how many runs the budget leaves room for as the files grow
 * or hold free space.
 */
class StorageBudgetTest {

    @Test
    void sizesParse_andNoneOrEmptyMeansNoBudget() {
        assertThat(StorageBudget.parse("20GB").bytes()).isEqualTo(20L << 30);
        assertThat(StorageBudget.parse("200mb").bytes()).isEqualTo(200L << 20);
        assertThat(StorageBudget.parse(" 1TB ").display()).isEqualTo("1TB");
        assertThat(StorageBudget.parse("1536MB").display()).isEqualTo("1536MB");
        assertThat(StorageBudget.parse("")).isEqualTo(StorageBudget.NONE);
        assertThat(StorageBudget.parse(null).enabled()).isFalse();
        assertThat(StorageBudget.parse("none").display()).isEqualTo("none");
    }

    @Test
    void badSizesAreRefused_namingTheProperty() {
        assertThatThrownBy(() -> StorageBudget.parse("lots"))
                .hasMessage("cadre.retention.budget must be a size such as 20GB, 500MB or 1TB (or empty for no"
                        + " budget), was 'lots'");
        assertThatThrownBy(() -> StorageBudget.parse("0GB"))
                .hasMessage("cadre.retention.budget must be a positive size such as 20GB (or empty for no budget),"
                        + " was '0GB'");
        assertThatThrownBy(() -> StorageBudget.parse("512KB"))
                .hasMessage("cadre.retention.budget must be at least 1MB (or unset for none), was 524288 bytes");
    }

    @Test
    void onTheEmbeddedDatabase_aBudgetStopsTheStart_sayingWhy() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(CadreApplication.class)
                        .run(
                                "--server.port=0",
                                "--spring.datasource.url=jdbc:h2:mem:budget-refused;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;"
                                        + "DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
                                "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                                "--cadre.retention.enabled=false",
                                "--cadre.retention.budget=20GB")
                        .close())
                .rootCause()
                .hasMessageStartingWith("cadre.retention.budget is supported on PostgreSQL only (this database is H2,");
    }

    @Test
    void runsToKeep_followsTheMeasuredBytesPerRun_onlyWhileTheFilesGrow() {
        long mb = 1L << 20;
        BudgetControl control = new BudgetControl(new StorageBudget(100 * mb));
        assertThat(control.over(100 * mb)).isFalse();
        assertThat(control.over(100 * mb + 1)).isTrue();

        // First over the budget: 110 MB for 1,100 runs, 0.1 MB each; room for 950 under 95 MB.
        assertThat(control.runsToKeep(110 * mb, 1_100)).isEqualTo(950);
        // The files did not grow (the removed runs' space is being reused): the estimate stands,
        // although 110 MB over 1,000 runs would now say 0.11 MB each.
        assertThat(control.runsToKeep(110 * mb, 1_000)).isEqualTo(950);
        // They grew: no free space was left, so the ratio is honest again (0.12 MB a run).
        assertThat(control.runsToKeep(120 * mb, 1_000)).isEqualTo(791);
        assertThat(control.bytesPerRun()).isEqualTo(120.0 * mb / 1_000);
        // Within the budget again (a day of events dropped), then over: renewed from the new size.
        control.within(90 * mb);
        assertThat(control.runsToKeep(100 * mb + 1, 1_000)).isEqualTo(949);

        BudgetControl none = new BudgetControl(StorageBudget.NONE);
        assertThat(none.over(Long.MAX_VALUE)).isFalse();
    }
}
