package dev.cadre.memory.internal;

import dev.cadre.memory.InvalidMemoryRequestException;
import dev.cadre.memory.MemoryPolicy;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Checks every request against a {@link MemoryPolicy} and canonicalises JSON values. */
public final class Validation {

    private static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]+");
    public static final int MAX_REQUEST_ID_LENGTH = 128;
    public static final int MAX_LIMIT = 1000;

    private final MemoryPolicy policy;
    private final JsonMapper json;

    public Validation(MemoryPolicy policy) {
        this.policy = policy;
        // Floats as BigDecimal so canonicalisation never changes a number; duplicate keys and
        // trailing garbage are errors rather than silently dropped.
        this.json = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .build();
    }

    public void namespace(@Nullable String namespace) {
        if (namespace == null || namespace.isEmpty()) {
            throw new InvalidMemoryRequestException("namespace", "must not be empty");
        }
        if (namespace.length() > policy.maxNamespaceLength()) {
            throw new InvalidMemoryRequestException(
                    "namespace",
                    "must be at most " + policy.maxNamespaceLength() + " characters, was " + namespace.length());
        }
        if (!NAMESPACE.matcher(namespace).matches()) {
            throw new InvalidMemoryRequestException(
                    "namespace", "may contain only letters, digits, '.', '_' and '-', was '" + namespace + "'");
        }
        if (!policy.namespaces().isEmpty() && !policy.namespaces().contains(namespace)) {
            throw new InvalidMemoryRequestException(
                    "namespace",
                    "'" + namespace + "' is not declared; declared namespaces are "
                            + policy.namespaces().stream().sorted().toList());
        }
    }

    public void key(@Nullable String key) {
        if (key == null || key.isEmpty()) {
            throw new InvalidMemoryRequestException("key", "must not be empty");
        }
        checkKeyText("key", key);
    }

    public void prefix(@Nullable String prefix) {
        if (prefix == null) {
            throw new InvalidMemoryRequestException("prefix", "must not be null (use \"\" for all keys)");
        }
        checkKeyText("prefix", prefix);
    }

    private void checkKeyText(String field, String key) {
        if (key.length() > policy.maxKeyLength()) {
            throw new InvalidMemoryRequestException(
                    field, "must be at most " + policy.maxKeyLength() + " characters, was " + key.length());
        }
        for (int i = 0; i < key.length(); i++) {
            if (Character.isISOControl(key.charAt(i))) {
                throw new InvalidMemoryRequestException(
                        field, "must not contain control characters (at index " + i + ")");
            }
        }
    }

    /** Parses, checks and returns the canonical (compact) form of a JSON value. */
    public String value(@Nullable String valueJson) {
        if (valueJson == null || valueJson.isBlank()) {
            throw new InvalidMemoryRequestException(
                    "value", "must not be empty: give a JSON value (e.g. null, 1, \"text\", {})");
        }
        // Check the raw size first so a huge value is refused without parsing it.
        long rawBytes = utf8Length(valueJson);
        if (rawBytes > 4L * policy.maxValueBytes()) {
            throw new InvalidMemoryRequestException(
                    "value", "must be at most " + policy.maxValueBytes() + " bytes of JSON, was " + rawBytes);
        }
        JsonNode node;
        try {
            node = json.readTree(valueJson);
        } catch (JacksonException e) {
            throw new InvalidMemoryRequestException("value", "is not valid JSON: " + e.getOriginalMessage());
        }
        if (node == null || node.isMissingNode()) {
            throw new InvalidMemoryRequestException("value", "is not valid JSON: no value found");
        }
        String canonical = json.writeValueAsString(node);
        long bytes = utf8Length(canonical);
        if (bytes > policy.maxValueBytes()) {
            throw new InvalidMemoryRequestException(
                    "value", "must be at most " + policy.maxValueBytes() + " bytes of JSON, was " + bytes);
        }
        return canonical;
    }

    /**
     * The canonical (compact) form of a JSON tree, checked like {@link #value(String)}: the same
     * text the tree's printed form would give, without printing and parsing it when that is
     * certain.
     */
    public String value(@Nullable JsonNode node) {
        if (node == null || node.isMissingNode()) {
            throw new InvalidMemoryRequestException(
                    "value", "must not be empty: give a JSON value (e.g. null, 1, \"text\", {})");
        }
        if (hasBinaryFloat(node)) {
            // A double prints as e.g. 1.0E20, while the text form reads every float as a decimal
            // and stores 1.0E+20: take the text path so a tree and its text store the same bytes.
            return value(json.writeValueAsString(node));
        }
        String canonical = json.writeValueAsString(node);
        long bytes = utf8Length(canonical);
        if (bytes > policy.maxValueBytes()) {
            throw new InvalidMemoryRequestException(
                    "value", "must be at most " + policy.maxValueBytes() + " bytes of JSON, was " + bytes);
        }
        return canonical;
    }

    private static boolean hasBinaryFloat(JsonNode node) {
        if (node.isContainer()) {
            return node.valueStream().anyMatch(Validation::hasBinaryFloat);
        }
        return node.isDouble() || node.isFloat();
    }

    public void expectedVersion(long expectedVersion) {
        if (expectedVersion < 0) {
            throw new InvalidMemoryRequestException(
                    "expectedVersion", "must be 0 (create only if absent) or a version > 0, was " + expectedVersion);
        }
    }

    public void deleteVersion(long expectedVersion) {
        if (expectedVersion <= 0) {
            throw new InvalidMemoryRequestException(
                    "expectedVersion", "of a delete must be the live version (> 0), was " + expectedVersion);
        }
    }

    public void requestId(@Nullable String requestId) {
        if (requestId == null) {
            return;
        }
        if (requestId.isBlank()) {
            throw new InvalidMemoryRequestException("requestId", "must not be blank (leave it out instead)");
        }
        if (requestId.length() > MAX_REQUEST_ID_LENGTH) {
            throw new InvalidMemoryRequestException(
                    "requestId", "must be at most " + MAX_REQUEST_ID_LENGTH + " characters, was " + requestId.length());
        }
    }

    public void limit(int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new InvalidMemoryRequestException("limit", "must be 1.." + MAX_LIMIT + ", was " + limit);
        }
    }

    public void cursor(long cursor) {
        if (cursor < 0) {
            throw new InvalidMemoryRequestException("cursor", "must be 0 or a change's cursor, was " + cursor);
        }
    }

    public void maxRetries(int maxRetries) {
        if (maxRetries < 0 || maxRetries > 1000) {
            throw new InvalidMemoryRequestException("maxRetries", "must be 0..1000, was " + maxRetries);
        }
    }

    public JsonMapper mapper() {
        return json;
    }

    private static long utf8Length(String s) {
        // Cheap upper bound first: most values are ASCII.
        if (s.length() * 3L < 16_384) {
            return s.getBytes(StandardCharsets.UTF_8).length;
        }
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
