package dev.cadre.agent.model;

import dev.cadre.agent.internal.JsonText;
import java.util.List;

/**
 * Estimates the input tokens of a request before it is sent, so the loop can refuse a call that
 * would not fit the budget instead of overspending it. The default counts four characters a token.
 */
@FunctionalInterface
public interface TokenEstimator {

    /** Four characters a token plus a few tokens of framing per message and tool definition. */
    TokenEstimator CHARACTERS_DIV_4 = (messages, tools) -> {
        long chars = 0;
        for (Message message : messages) {
            chars += 16 + textLength(message);
        }
        for (ToolDefinition tool : tools) {
            chars += 16
                    + tool.name().length()
                    + tool.description().length()
                    + JsonText.approximateLength(tool.parametersSchema());
        }
        return (chars + 3) / 4;
    };

    /** The estimated input tokens of these messages and tool definitions. */
    long estimate(List<Message> messages, List<ToolDefinition> tools);

    /** The estimated tokens of a piece of text. */
    static long ofText(String text) {
        return (text.length() + 3) / 4;
    }

    private static long textLength(Message message) {
        return switch (message) {
            case SystemMessage m -> m.text().length();
            case UserMessage m -> m.text().length();
            case AssistantMessage m -> {
                long n = m.text() == null ? 0 : m.text().length();
                for (ToolCall call : m.toolCalls()) {
                    n += call.name().length() + JsonText.approximateLength(call.arguments());
                }
                yield n;
            }
            case ToolResultMessage m -> m.content().length();
        };
    }
}
