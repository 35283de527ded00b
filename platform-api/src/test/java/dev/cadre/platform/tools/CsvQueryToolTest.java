package dev.cadre.platform.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** csv_query over the shipped orders dataset, and compare_periods over its grouped answer. */
class CsvQueryToolTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final ToolContext CTX = new ToolContext("run_x", "run_x", "crm-data", "c1");

    final CsvQueryTool query =
            new CsvQueryTool(CsvDatasets.load(List.of(new ClassPathResource("datasets/orders.csv"))), JSON);

    JsonNode ask(String args) throws Exception {
        return JSON.readTree(query.execute(JSON.readTree(args), CTX));
    }

    @Test
    void filtersListsGroupsAndSums_theShippedOrders() throws Exception {
        assertThat(ask("{\"dataset\":\"orders\"}").get("matched").asInt()).isEqualTo(360);
        JsonNode east =
                ask("{\"dataset\":\"orders\",\"where\":{\"region\":\"East\"},\"columns\":[\"order_id\",\"amount\"],"
                        + "\"limit\":2,\"sum\":[\"amount\"]}");
        assertThat(east.get("matched").asInt()).isEqualTo(135);
        assertThat(east.get("rows")).hasSize(2);
        assertThat(east.get("rows").get(0).propertyNames()).containsExactly("order_id", "amount");
        assertThat(east.get("truncated").asBoolean()).isTrue();

        JsonNode grouped =
                ask("{\"dataset\":\"orders\",\"where\":{\"region\":\"East\",\"month\":[\"2026-06\",\"2026-07\"]},"
                        + "\"groupBy\":[\"month\"],\"sum\":[\"amount\"]}");
        assertThat(grouped.get("groups").valueStream().map(g -> g.get("month").asString() + "=" + g.get("amount")))
                .containsExactly("2026-06=243712", "2026-07=213717");
        assertThat(grouped.at("/totals/amount").asLong()).isEqualTo(243712 + 213717);

        JsonNode byCategory =
                ask("{\"dataset\":\"orders\",\"where\":{\"region\":\"East\",\"month\":[\"2026-06\",\"2026-07\"]},"
                        + "\"groupBy\":[\"month\",\"category\"],\"sum\":[\"amount\"]}");
        JsonNode change = JSON.readTree(new ComparePeriodsTool(JSON)
                .execute(
                        JSON.createObjectNode()
                                .put("figures", "crm-data said: " + byCategory)
                                .put("period", "month")
                                .put("from", "2026-06")
                                .put("to", "2026-07")
                                .put("by", "category")
                                .put("value", "amount"),
                        CTX));
        assertThat(change.at("/total/changePct").asDouble()).isEqualTo(-12.3);
        assertThat(change.at("/by_category/0/category").asString()).isEqualTo("Home Appliances");
        assertThat(change.at("/by_category/0/change").asLong()).isEqualTo(81615 - 139728);
    }

    @Test
    void anUnknownDatasetOrColumn_isNamed() {
        assertThatThrownBy(() -> ask("{\"dataset\":\"customers\"}"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("unknown dataset 'customers'")
                .hasMessageContaining("[orders]");
        assertThatThrownBy(() -> ask("{\"dataset\":\"orders\",\"groupBy\":[\"country\"]}"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("'groupBy': unknown column 'country'");
        assertThatThrownBy(() -> ask("{\"dataset\":\"orders\",\"sum\":[\"region\"]}"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("'region' is not numeric");
    }
}
