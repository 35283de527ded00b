package dev.cadre.agent.model;

/** Finds the port for a model reference; platform-api maps providers to Spring AI chat models. */
@FunctionalInterface
public interface ModelResolver {

    /**
     * @throws IllegalArgumentException when no model is configured for {@code ref}
     */
    ModelPort resolve(ModelRef ref);
}
