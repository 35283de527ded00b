package dev.cadre.agent.economy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.OutcomeStatus;
import dev.cadre.agent.economy.SalesOrders.Order;
import dev.cadre.agent.economy.SalesOrders.Segment;
import dev.cadre.agent.model.ModelRequest;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The structural facts of docs/benchmarks/context-economy.md; no timing. */
class ContextEconomyTest {

    private static ContextEconomy.Result result;

    @BeforeAll
    static void runBoth() throws InterruptedException {
        result = ContextEconomy.run();
    }

    @Test
    void data_holds_300_east_china_rows_with_a_12_percent_july_drop() {
        List<Order> rows = SalesOrders.generate();
        assertThat(rows).hasSize(300);
        assertThat(rows).allMatch(o -> o.region().equals("East China"));
        assertThat(rows).extracting(Order::orderId).doesNotHaveDuplicates();
        SalesAnalysis a = SalesAnalysis.of(rows, "East China", "2026-06", "2026-07");
        assertThat(a.change()).isCloseTo(-0.12, org.assertj.core.data.Offset.offset(0.0005));
        assertThat(SalesOrders.generate()).isEqualTo(rows);
    }

    @Test
    void orchestrator_never_sees_an_order_row() {
        String firstOrder = SalesOrders.generate().getFirst().orderId();
        assertThat(result.orchestratorRequests()).hasSize(3);
        for (ModelRequest r : result.orchestratorRequests()) {
            assertThat(r.messages().toString()).doesNotContain(firstOrder).doesNotContain("amount_cny");
        }
        // The rows did flow: the data agent had them in its context, the analysis agent only the summary.
        assertThat(result.dataAgentRequests().getLast().messages().toString()).contains(firstOrder);
        for (ModelRequest r : result.analysisAgentRequests()) {
            assertThat(r.messages().toString()).doesNotContain(firstOrder);
        }
        assertThat(result.singleAgentRequests().getLast().messages().toString()).contains(firstOrder);
    }

    @Test
    void both_answers_name_the_computed_cause() {
        assertThat(result.orchestrated().status()).isEqualTo(OutcomeStatus.OK);
        assertThat(result.expected().cause()).isEqualTo(SalesOrders.DEFAULT_CAUSE);
        for (String answer :
                List.of(result.orchestrated().finalText(), result.single().finalText())) {
            assertThat(answer).contains("-12.0 %").contains("Cause: Distributor x Air conditioner fell");
        }
        assertThat(result.single().finalText()).isEqualTo(result.expected().text());
        assertThat(result.orchestrated().subagents())
                .extracting(s -> s.worker())
                .containsExactly("data_agent", "analysis_agent");
    }

    @Test
    void analysis_follows_the_rows_not_a_fixed_answer() throws InterruptedException {
        Segment other = new Segment("Online", "Television");
        ContextEconomy.Result moved = ContextEconomy.run(SalesOrders.generate(other));
        assertThat(moved.expected().cause()).isEqualTo(other);
        assertThat(moved.orchestrated().finalText()).contains("Cause: Online x Television fell");
        assertThat(moved.single().finalText()).contains("Cause: Online x Television fell");
    }

    @Test
    void orchestrator_context_is_at_least_five_times_smaller() {
        assertThat(result.orchestrator().modelCalls()).isEqualTo(3);
        assertThat(result.singleAgent().modelCalls()).isEqualTo(3);
        assertThat(result.ratio()).isGreaterThanOrEqualTo(5.0);
        // The counter reads the same numbers as the run's own usage accounting.
        long workers = result.orchestrated().subagents().stream()
                .mapToLong(s -> s.usage().inputTokens())
                .sum();
        assertThat(result.orchestrator().inputTokens())
                .isEqualTo(result.orchestrated().usage().inputTokens() - workers);
        assertThat(result.singleAgent().inputTokens())
                .isEqualTo(result.single().usage().inputTokens());
    }

    @Test
    void cause_segment_really_collapsed_in_the_rows() {
        SalesAnalysis a = result.expected();
        assertThat(a.causeNow()).isLessThan(a.causeBase().multiply(BigDecimal.valueOf(0.3)));
        assertThat(Math.abs(a.othersChange())).isLessThan(0.03);
    }
}
