package dev.cadre.platform.recall;

import org.jspecify.annotations.Nullable;

/**
 * One past incident found similar: its record, the fused score it was ranked by, its rank in each of
 * the two rankings (null when that ranking did not return it) and the cosine similarity of its
 * symptoms to the query's (how alike they read, whatever the rank; 1 is the same text).
 */
public record SimilarIncident(
        ResolutionRecord record,
        double score,
        @Nullable Integer lexicalRank,
        @Nullable Integer semanticRank,
        double similarity) {}
