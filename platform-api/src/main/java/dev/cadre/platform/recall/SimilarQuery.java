package dev.cadre.platform.recall;

import java.time.Instant;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A question to the incident memory: the symptoms of the incident at hand, who not to return (the
 * incident itself), the filters (same target kind, same service, same namespace, resolved since) and
 * how many answers.
 *
 * @param mode which rankings to use: lexical (BM25) alone, semantic (embeddings) alone, or both fused
 */
public record SimilarQuery(
        String text,
        @Nullable String excludeId,
        @Nullable String targetKind,
        @Nullable String service,
        @Nullable String namespace,
        @Nullable Instant since,
        int limit,
        Mode mode) {

    public static final int MAX_LIMIT = 50;

    public SimilarQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1.." + MAX_LIMIT + ", was " + limit);
        }
        targetKind = blankToNull(targetKind, true);
        service = blankToNull(service, false);
        namespace = blankToNull(namespace, false);
    }

    /** Symptoms only, no filter, hybrid ranking. */
    public static SimilarQuery of(String text, int limit) {
        return new SimilarQuery(text, null, null, null, null, null, limit, Mode.HYBRID);
    }

    public SimilarQuery withMode(Mode m) {
        return new SimilarQuery(text, excludeId, targetKind, service, namespace, since, limit, m);
    }

    /** Which rankings a query uses. */
    public enum Mode {
        LEXICAL,
        SEMANTIC,
        HYBRID;

        public static Mode parse(String s) {
            try {
                return valueOf(s.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("mode must be lexical, semantic or hybrid, was '" + s + "'");
            }
        }
    }

    private static @Nullable String blankToNull(@Nullable String s, boolean upper) {
        if (s == null || s.isBlank()) {
            return null;
        }
        return upper ? s.strip().toUpperCase(Locale.ROOT) : s.strip().toLowerCase(Locale.ROOT);
    }
}
