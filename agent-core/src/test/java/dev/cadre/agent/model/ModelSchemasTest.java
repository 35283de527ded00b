package dev.cadre.agent.model;

import static dev.cadre.agent.testing.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolRegistry;
import dev.cadre.agent.tool.Tools;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ModelSchemasTest {

    /** http_probe's schema as shipped: the 2000-character URL bound llama.cpp refuses to compile. */
    private static final String PROBE = """
            {"type":"object","properties":{
              "url":{"type":"string","minLength":8,"maxLength":2000},
              "method":{"type":"string","enum":["GET","HEAD"]},
              "timeoutMillis":{"type":"integer","minimum":100,"maximum":60000}},
             "required":["url"],"additionalProperties":false}
            """;

    /** What an MCP server may publish: draft keywords, boolean schemas, patterns, remote refs. */
    private static final String MCP = """
            {"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
             "properties":{
               "anything":true,
               "never":false,
               "name":{"type":"string","pattern":"[a-z]+","minLength":1,"maxLength":63},
               "tags":{"type":"array","items":{"type":"string","maxLength":5000},"maxItems":2000,"uniqueItems":true},
               "size":{"type":"integer","exclusiveMinimum":true,"minimum":0},
               "when":{"type":"string","format":"date-time","examples":["2026-01-01T00:00:00Z"]},
               "kind":{"type":"any"},
               "remote":{"$ref":"https://example.invalid/schema.json"},
               "local":{"$ref":"#/$defs/target"},
               "either":{"anyOf":[{"type":"string","maxLength":100000},{"type":"null"}]}},
             "$defs":{"target":{"type":"object","properties":{"host":{"type":"string"}},"not":{"required":["x"]}}},
             "required":["name"],"additionalProperties":{"type":"string","maxLength":4000}}
            """;

    @Test
    void aBoundTooLargeForAGrammar_isStatedInTheDescription_andSmallBoundsAreKept() {
        JsonNode model = ModelSchemas.forModel(json(PROBE));

        assertThat(model.at("/properties/url"))
                .isEqualTo(json("{\"type\":\"string\",\"minLength\":8,\"description\":\"(at most 2000 characters)\"}"));
        assertThat(model.at("/properties/method")).isEqualTo(json(PROBE).at("/properties/method"));
        assertThat(model.at("/properties/timeoutMillis")).isEqualTo(json(PROBE).at("/properties/timeoutMillis"));
        assertThat(model.get("required")).isEqualTo(json("[\"url\"]"));
        assertThat(model.get("additionalProperties").booleanValue()).isFalse();
        assertThat(ModelSchemas.problems(json(PROBE)))
                .containsExactly("$.properties.url.maxLength: 2000 is above 1000"
                        + " (llama.cpp rejects 2000 and more with 'failed to parse grammar')");
        assertThat(ModelSchemas.problems(model)).isEmpty();
    }

    @Test
    void whatAnMcpServerPublishes_becomesASchemaAGrammarServerCompiles() {
        JsonNode model = ModelSchemas.forModel(json(MCP));

        assertThat(ModelSchemas.problems(json(MCP)))
                .containsExactlyInAnyOrder(
                        "$.$schema: keyword not supported by grammar-constrained inference servers",
                        "$.properties.anything: a sub-schema must be an object, not true",
                        "$.properties.never: a sub-schema must be an object, not false",
                        "$.properties.name.pattern: keyword not supported by grammar-constrained inference servers",
                        "$.properties.tags.items.maxLength: 5000 is above 1000 (llama.cpp rejects 2000 and more with"
                                + " 'failed to parse grammar')",
                        "$.properties.tags.maxItems: 2000 is above 1000 (llama.cpp rejects 2000 and more with"
                                + " 'failed to parse grammar')",
                        "$.properties.tags.uniqueItems: keyword not supported by grammar-constrained inference servers",
                        "$.properties.size.exclusiveMinimum: must be a number",
                        "$.properties.when.examples: keyword not supported by grammar-constrained inference servers",
                        "$.properties.kind.type: unknown type \"any\"",
                        "$.properties.remote.$ref: only references inside the schema (#/...) resolve",
                        "$.properties.either.anyOf[0].maxLength: 100000 is above 1000 (llama.cpp rejects 2000 and"
                                + " more with 'failed to parse grammar')",
                        "$.$defs.target.not: keyword not supported by grammar-constrained inference servers",
                        "$.additionalProperties.maxLength: 4000 is above 1000 (llama.cpp rejects 2000 and more with"
                                + " 'failed to parse grammar')");
        assertThat(ModelSchemas.problems(model)).isEmpty();
        assertThat(model).isEqualTo(json("""
                {"type":"object",
                 "properties":{
                   "anything":{},
                   "name":{"type":"string","minLength":1,"maxLength":63,
                     "description":"(matching the regular expression [a-z]+)"},
                   "tags":{"type":"array","items":{"type":"string","description":"(at most 5000 characters)"},
                     "description":"(at most 2000 items)"},
                   "size":{"type":"integer","minimum":0},
                   "when":{"type":"string","format":"date-time"},
                   "kind":{},
                   "remote":{},
                   "local":{"$ref":"#/$defs/target"},
                   "either":{"anyOf":[{"type":"string","description":"(at most 100000 characters)"},{"type":"null"}]}},
                 "$defs":{"target":{"type":"object","properties":{"host":{"type":"string"}}}},
                 "required":["name"],
                 "additionalProperties":{"type":"string","description":"(at most 4000 characters)"}}
                """));
        assertThat(ModelSchemas.forModel(model)).as("idempotent").isEqualTo(model);
    }

    @Test
    void aDescriptionKeepsItsText_andTheStatedLimitFollowsIt() {
        JsonNode model = ModelSchemas.forModel(json("""
                {"type":"object","properties":{"note":{"type":"string","maxLength":2000,
                  "description":"A line for the incident's timeline."}}}
                """));

        assertThat(model.at("/properties/note/description").asString())
                .isEqualTo("A line for the incident's timeline. (at most 2000 characters)");
    }

    @Test
    void theModelIsShownTheDerivedSchema_whileCallsAreValidatedAgainstTheToolsOwn() {
        Tool probe = Tools.of("http_probe", "Probe a URL.", PROBE, Risk.AUTO, (args, ctx) -> "ok");
        ToolDefinition shown = ToolRegistry.of(probe).definitions().getFirst();

        assertThat(shown.parametersSchema().at("/properties/url/maxLength").isMissingNode())
                .isTrue();
        assertThat(probe.parametersSchema().at("/properties/url/maxLength").asInt())
                .isEqualTo(2000);
        String tooLong = "https://" + "a".repeat(2000);
        assertThat(JsonSchemas.validate(probe.parametersSchema(), json("{\"url\":\"" + tooLong + "\"}")))
                .containsExactly("$.url: must have at most 2000 characters");
        assertThat(new ToolDefinition("direct", "Made by hand.", json(PROBE)).parametersSchema())
                .as("every definition, however made, is the model-facing form")
                .isEqualTo(shown.parametersSchema());
    }
}
