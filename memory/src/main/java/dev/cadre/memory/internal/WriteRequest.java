package dev.cadre.memory.internal;

import dev.cadre.memory.Writer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * A validated write: {@code value} is canonical JSON, or null for a delete.
 *
 * @param at the time recorded as {@code updatedAt}, truncated to microseconds so every store keeps
 *     it exactly
 */
public record WriteRequest(
        String namespace,
        String key,
        @Nullable String value,
        long expectedVersion,
        Writer writer,
        @Nullable String requestId,
        Instant at) {

    public boolean delete() {
        return value == null;
    }

    /**
     * What a request id stands for: the same id with a different write is a client bug, not a retry,
     * and is refused instead of answered with an unrelated outcome.
     */
    public String fingerprint() {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            String text = namespace
                    + '\u0000'
                    + key
                    + '\u0000'
                    + expectedVersion
                    + '\u0000'
                    + (value == null ? "\u0000delete" : value);
            return HexFormat.of().formatHex(sha.digest(text.getBytes(StandardCharsets.UTF_8)), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
