package dev.cadre.agent.tool.output;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.model.ToolDefinition;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import tools.jackson.databind.JsonNode;

/**
 * {@code tool_output_read}: pages through an output of this run that reached the model capped. Every
 * agent may call it; its model is told about it once one of its results was capped. A page is bounded
 * by the agent's cap for this tool, so reading never overflows what the cap protects.
 */
public final class ToolOutputReadTool implements Tool {

    private static final String DESCRIPTION =
            "Reads a tool output that was too long to show whole (its result holds a line starting"
                    + " '[cadre: output cut:' naming a handle). Returns numbered lines from 'offset', at most"
                    + " 'limit'; with 'grep' only the lines containing that text. The answer names the next offset.";

    private static final JsonNode SCHEMA = JsonSchemas.parse("""
            {"type":"object","properties":{
              "handle":{"type":"string","minLength":1,"description":"The handle named in the cut line of a capped result."},
              "offset":{"type":"integer","minimum":0,"description":"First line to read (0-based); default 0."},
              "limit":{"type":"integer","minimum":1,"maximum":1000,"description":"Most lines to return; default 200."},
              "grep":{"type":"string","description":"Only lines containing this text (case-insensitive)."}},
             "required":["handle"],"additionalProperties":false}
            """);

    /** What a model is told about the tool. */
    public static final ToolDefinition DEFINITION = new ToolDefinition(ToolOutputs.READ_TOOL, DESCRIPTION, SCHEMA);

    private final ToolOutputs outputs;
    private final int pageBytes;

    /** @param pageBytes the most bytes of a page (the calling agent's cap for this tool) */
    public ToolOutputReadTool(ToolOutputs outputs, int pageBytes) {
        this.outputs = outputs;
        this.pageBytes = pageBytes;
    }

    @Override
    public String name() {
        return ToolOutputs.READ_TOOL;
    }

    @Override
    public String description() {
        return DESCRIPTION;
    }

    @Override
    public JsonNode parametersSchema() {
        return SCHEMA;
    }

    @Override
    public Risk risk() {
        return Risk.AUTO;
    }

    @Override
    public String execute(JsonNode arguments, ToolContext context) throws ToolException {
        String handle = arguments.path("handle").asString("");
        long offset = arguments.path("offset").asLong(0);
        int limit = arguments.path("limit").asInt(200);
        String grep = arguments.hasNonNull("grep") ? arguments.get("grep").asString() : null;
        ToolOutputPage page = outputs.read(context.runId(), handle, offset, limit, grep, pageBytes - 400);
        if (page == null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "unknown_output_handle",
                    "no tool output '" + handle + "' in this run (handles are only valid in the run that made them)");
        }
        return render(page);
    }

    /** The page as the model reads it: a header line, then {@code number: text} lines. */
    static String render(ToolOutputPage page) {
        ToolOutputInfo info = page.info();
        StringBuilder out = new StringBuilder(256 + page.lines().size() * 64);
        out.append("[")
                .append(info.handle())
                .append(": ")
                .append(info.tool())
                .append(" output, ")
                .append(info.storedLines())
                .append(" lines kept of ")
                .append(info.originalBytes())
                .append(" bytes");
        if (info.truncated()) {
            out.append(" (the middle was too big to keep whole)");
        }
        out.append("; ");
        if (page.grep() != null) {
            out.append(page.lines().size())
                    .append(" lines containing \"")
                    .append(page.grep())
                    .append("\" from line ")
                    .append(page.offset());
        } else if (page.lines().isEmpty()) {
            out.append("no lines from ").append(page.offset());
        } else {
            out.append("lines ")
                    .append(page.lines().getFirst().number())
                    .append('-')
                    .append(page.lines().getLast().number());
        }
        out.append(page.nextOffset() == null ? "; end of output]" : "; next offset " + page.nextOffset() + "]");
        for (ToolOutputPage.Line line : page.lines()) {
            out.append('\n').append(line.number()).append(": ").append(line.text());
        }
        return out.toString();
    }
}
