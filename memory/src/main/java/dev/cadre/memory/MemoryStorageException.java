package dev.cadre.memory;

/** The backing store failed (database unreachable, statement failed); the write may be retried. */
public final class MemoryStorageException extends RuntimeException {

    public MemoryStorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
