package dev.cadre.memory;

/**
 * Whether a backend is fully working: {@code DEGRADED} means it still serves every operation from
 * its authority (PostgreSQL) but a helper (the Redis cache and event stream) is unreachable.
 */
public record MemoryHealth(Status status, String detail) {

    /** Overall state. */
    public enum Status {
        UP,
        DEGRADED
    }

    public static MemoryHealth up(String detail) {
        return new MemoryHealth(Status.UP, detail);
    }

    public static MemoryHealth degraded(String detail) {
        return new MemoryHealth(Status.DEGRADED, detail);
    }
}
