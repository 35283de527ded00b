package dev.cadre.agent.tool;

import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonSchemasTest {

    private static final String SCHEMA = """
            {"type": "object",
             "properties": {
               "service": {"type": "string", "enum": ["api", "db"]},
               "replicas": {"type": "integer", "minimum": 1, "maximum": 10},
               "reason": {"type": "string", "minLength": 3, "maxLength": 20},
               "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
               "options": {"type": "object", "additionalProperties": {"type": "boolean"}}},
             "required": ["service"],
             "additionalProperties": false}
            """;

    private static List<String> validate(String instance) {
        return JsonSchemas.validate(json(SCHEMA), json(instance));
    }

    @Test
    void validArguments_haveNoProblems() {
        assertThat(
                        validate(
                                "{\"service\":\"api\",\"replicas\":3,\"reason\":\"load\",\"tags\":[\"a\"],\"options\":{\"force\":true}}"))
                .isEmpty();
    }

    @Test
    void everyViolation_isReportedWithItsPath() {
        assertThat(
                        validate(
                                "{\"replicas\":0,\"reason\":\"x\",\"tags\":[\"a\",1,\"c\"],\"options\":{\"force\":\"yes\"},\"extra\":1}"))
                .containsExactlyInAnyOrder(
                        "$: missing required property 'service'",
                        "$.replicas: must be >= 1",
                        "$.reason: must have at least 3 characters",
                        "$.tags: must have at most 2 items",
                        "$.tags[1]: expected string but was integer",
                        "$.options.force: expected boolean but was string",
                        "$: unknown property 'extra'");
        assertThat(validate("{\"service\":\"web\",\"replicas\":2.5}"))
                .containsExactlyInAnyOrder(
                        "$.service: must be one of [\"api\",\"db\"]", "$.replicas: expected integer but was number");
        assertThat(validate("[]")).containsExactly("$: expected object but was array");
    }

    @Test
    void registry_rejectsBadNamesDuplicatesAndNonObjectSchemas_andWhitelistsCopies() {
        Tool a = Tools.of("a", "A.", "{\"type\":\"object\"}", Risk.AUTO, (args, ctx) -> "a");
        Tool b = Tools.of("b", "B.", "{\"type\":\"object\"}", Risk.SUGGEST, (args, ctx) -> "b");
        ToolRegistry registry = ToolRegistry.of(a, b);

        assertThat(registry.whitelist(List.of("b")).names()).containsExactly("b");
        assertThat(registry.whitelist(List.of("b")).find("a")).isNull();
        assertThatThrownBy(() -> registry.whitelist(List.of("c"))).hasMessageContaining("unknown tool 'c'");
        assertThatThrownBy(() -> ToolRegistry.of(a, a)).hasMessageContaining("duplicate tool name 'a'");
        assertThatThrownBy(() -> Tools.of("bad name", "x", "{\"type\":\"object\"}", Risk.AUTO, (args, ctx) -> ""))
                .hasMessageContaining("tool name 'bad name'");
        assertThatThrownBy(() -> Tools.of("s", "x", "{\"type\":\"string\"}", Risk.AUTO, (args, ctx) -> ""))
                .hasMessageContaining("must declare an object schema");
    }
}
