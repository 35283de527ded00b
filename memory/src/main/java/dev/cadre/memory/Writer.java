package dev.cadre.memory;

import org.jspecify.annotations.Nullable;

/** Who wrote a version: an agent within a run, or a client of the platform's API. */
public sealed interface Writer {

    /** An agent writing during one of its runs. */
    record Agent(String agent, String run) implements Writer {
        public Agent {
            requireText(agent, "writer agent");
            requireText(run, "writer run");
        }
    }

    /** A client of the REST API (a user, an integration, a script), identified by its principal. */
    record ApiClient(String client) implements Writer {
        public ApiClient {
            requireText(client, "writer client");
        }
    }

    static Writer agent(String agent, String run) {
        return new Agent(agent, run);
    }

    static Writer apiClient(String client) {
        return new ApiClient(client);
    }

    /** Rebuilds a writer from its stored form ({@link #kind()}, {@link #id()}, {@link #run()}). */
    static Writer of(String kind, String id, @Nullable String run) {
        return switch (kind) {
            case "agent" -> new Agent(id, run == null || run.isBlank() ? "unknown" : run);
            case "client" -> new ApiClient(id);
            default -> throw new IllegalArgumentException("unknown writer kind '" + kind + "'");
        };
    }

    /** Stored form: {@code agent} or {@code client}. */
    default String kind() {
        return switch (this) {
            case Agent a -> "agent";
            case ApiClient c -> "client";
        };
    }

    /** The agent name or the client principal. */
    default String id() {
        return switch (this) {
            case Agent a -> a.agent();
            case ApiClient c -> c.client();
        };
    }

    /** The run of an agent writer; null for API clients. */
    default @Nullable String run() {
        return switch (this) {
            case Agent a -> a.run();
            case ApiClient c -> null;
        };
    }

    private static void requireText(@Nullable String value, String what) {
        if (value == null || value.isBlank()) {
            throw new InvalidMemoryRequestException(what, "must not be empty");
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidMemoryRequestException(what, "must not contain control characters");
        }
        if (value.length() > 256) {
            throw new InvalidMemoryRequestException(what, "must be at most 256 characters, was " + value.length());
        }
    }
}
