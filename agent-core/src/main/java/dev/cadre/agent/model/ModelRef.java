package dev.cadre.agent.model;

import java.util.Objects;

/**
 * Which model an agent talks to: a provider name (used as {@code gen_ai.provider.name}) and a model
 * name ({@code gen_ai.request.model}); written {@code provider:model}, e.g. {@code openai:gpt-4o} or
 * {@code scripted:ops-demo}.
 */
public record ModelRef(String provider, String model) {

    public ModelRef {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(model, "model");
        if (provider.isBlank() || model.isBlank()) {
            throw new IllegalArgumentException("model reference needs a provider and a model, e.g. openai:gpt-4o");
        }
    }

    /** Parses {@code provider:model}; the model part may itself contain colons ({@code ollama:llama3:8b}). */
    public static ModelRef parse(String text) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException(
                    "model reference '" + text + "' must be provider:model, e.g. openai:gpt-4o");
        }
        return new ModelRef(text.substring(0, colon), text.substring(colon + 1));
    }

    @Override
    public String toString() {
        return provider + ":" + model;
    }
}
