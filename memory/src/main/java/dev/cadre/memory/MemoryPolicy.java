package dev.cadre.memory;

import java.util.Set;

/**
 * Limits every backend enforces before touching a store. Defaults: namespaces of 1..64 characters
 * from {@code [A-Za-z0-9._-]}; keys of 1..512 characters without control characters; values of at
 * most 256 KiB of UTF-8 JSON; any namespace allowed unless {@code namespaces} declares the closed set.
 */
public record MemoryPolicy(int maxNamespaceLength, int maxKeyLength, int maxValueBytes, Set<String> namespaces) {

    public static final int DEFAULT_MAX_NAMESPACE_LENGTH = 64;
    public static final int DEFAULT_MAX_KEY_LENGTH = 512;
    public static final int DEFAULT_MAX_VALUE_BYTES = 256 * 1024;

    public MemoryPolicy {
        if (maxNamespaceLength < 1 || maxNamespaceLength > 128) {
            throw new IllegalArgumentException("maxNamespaceLength must be 1..128, was " + maxNamespaceLength);
        }
        if (maxKeyLength < 1 || maxKeyLength > 1024) {
            throw new IllegalArgumentException("maxKeyLength must be 1..1024, was " + maxKeyLength);
        }
        if (maxValueBytes < 2 || maxValueBytes > 1024 * 1024) {
            throw new IllegalArgumentException("maxValueBytes must be 2..1048576, was " + maxValueBytes);
        }
        namespaces = Set.copyOf(namespaces);
    }

    /** The defaults, all namespaces open. */
    public static MemoryPolicy defaults() {
        return new MemoryPolicy(
                DEFAULT_MAX_NAMESPACE_LENGTH, DEFAULT_MAX_KEY_LENGTH, DEFAULT_MAX_VALUE_BYTES, Set.of());
    }

    /** The defaults with a closed set of namespaces: any other is refused. */
    public MemoryPolicy withNamespaces(Set<String> declared) {
        return new MemoryPolicy(maxNamespaceLength, maxKeyLength, maxValueBytes, declared);
    }

    public MemoryPolicy withMaxValueBytes(int bytes) {
        return new MemoryPolicy(maxNamespaceLength, maxKeyLength, bytes, namespaces);
    }
}
