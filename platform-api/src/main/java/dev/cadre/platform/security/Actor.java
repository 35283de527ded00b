package dev.cadre.platform.security;

import org.jspecify.annotations.Nullable;

/**
 * Who acted, as the platform's decisions see it. {@code keyId} is the id of the API key (a console
 * session counts as the key it logged in with): run ownership, A2A task isolation, idempotency
 * scopes and separation of duties compare it and nothing else. {@code name} is for display and
 * audit text only — a name is not an identity (a reissued or renamed key could carry another's).
 * The platform's own actors ({@code system}, an evaluation's bookkeeping, a test) have no key id
 * and are never the same actor as any key, whatever their names.
 */
public record Actor(@Nullable String keyId, String name) {

    /** An actor of the platform itself, which no API key is. */
    public static Actor platform(String name) {
        return new Actor(null, name);
    }

    /** Whether this actor is the key {@code otherKeyId}; never for an actor without a key. */
    public boolean isKey(@Nullable String otherKeyId) {
        return keyId != null && keyId.equals(otherKeyId);
    }

    /** Whether both are the same API key (names play no part; actors without a key are no one's). */
    public boolean sameKey(Actor other) {
        return isKey(other.keyId());
    }

    @Override
    public String toString() {
        return keyId == null ? name : name + " (key " + keyId + ")";
    }
}
