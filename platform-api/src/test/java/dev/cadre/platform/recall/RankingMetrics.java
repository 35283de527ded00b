package dev.cadre.platform.recall;

import java.util.List;
import java.util.Set;

/**
 * Retrieval quality over a set of queries with known correct matches. {@code recall@k} is the share
 * of queries with at least one correct past incident in the first k (the on-call's question: is the
 * known fix on the first screen?); MRR the mean of 1 / rank of the first correct one (0 when none in
 * the ranking); nDCG@10 with binary relevance, the ideal ranking putting min(10, |correct|) correct
 * ones first.
 */
final class RankingMetrics {

    private int queries;
    private int hitsAt1;
    private int hitsAt3;
    private double reciprocalRanks;
    private double ndcg10;

    void add(List<String> ranked, Set<String> relevant) {
        queries++;
        int first = -1;
        double dcg = 0;
        for (int i = 0; i < ranked.size(); i++) {
            if (relevant.contains(ranked.get(i))) {
                if (first < 0) {
                    first = i + 1;
                }
                if (i < 10) {
                    dcg += 1.0 / log2(i + 2);
                }
            }
        }
        double idcg = 0;
        for (int i = 0; i < Math.min(10, relevant.size()); i++) {
            idcg += 1.0 / log2(i + 2);
        }
        if (first == 1) {
            hitsAt1++;
        }
        if (first >= 1 && first <= 3) {
            hitsAt3++;
        }
        reciprocalRanks += first > 0 ? 1.0 / first : 0;
        ndcg10 += idcg == 0 ? 0 : dcg / idcg;
    }

    int queries() {
        return queries;
    }

    double recallAt1() {
        return (double) hitsAt1 / queries;
    }

    double recallAt3() {
        return (double) hitsAt3 / queries;
    }

    double mrr() {
        return reciprocalRanks / queries;
    }

    double ndcgAt10() {
        return ndcg10 / queries;
    }

    @Override
    public String toString() {
        return String.format(
                java.util.Locale.ROOT,
                "recall@1 %.3f  recall@3 %.3f  MRR %.3f  nDCG@10 %.3f  (%d queries)",
                recallAt1(),
                recallAt3(),
                mrr(),
                ndcgAt10(),
                queries);
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
