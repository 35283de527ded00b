package dev.cadre.platform.recall;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.QueryBuilder;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * The derived index of resolved incidents: each record's symptoms and cause as English text for
 * BM25 (Lucene's default similarity), its symptoms' embedding in an HNSW graph, and keyword fields
 * for the filters. A query runs both rankings under the same filters and fuses them ({@link Fusion}).
 * It holds nothing the database does not: {@link RecallService} fills it from the incidents and
 * keeps it current; throwing it away loses only the time to rebuild it.
 */
public final class IncidentIndex implements Closeable {

    static final String ID = "id";
    static final String SYMPTOMS = "symptoms";
    static final String CAUSE = "cause";
    static final String KIND = "kind";
    static final String SERVICE = "service";
    static final String NAMESPACE = "namespace";
    static final String RESOLVED_AT = "resolvedAt";
    static final String VECTOR = "vector";
    static final String RECORD = "record";

    /** Longest query text used (the embedding model reads about 256 word pieces anyway). */
    static final int MAX_QUERY_CHARS = 2_000;

    private final Directory directory;
    private final Analyzer analyzer = new EnglishAnalyzer();
    private final IndexWriter writer;
    private final SearcherManager searchers;
    private final Embedder embedder;
    private final JsonMapper json;
    private final Settings settings;
    private final Map<String, Long> versions = new ConcurrentHashMap<>();

    /**
     * @param candidates how many each ranking contributes before fusion
     * @param causeBoost weight of a match in the past incident's root cause and fix against one in its
     *     symptoms (a new incident's words describe symptoms; its cause is what we are looking for)
     * @param fusion how the two rankings become one
     */
    public record Settings(int candidates, float causeBoost, Fusion fusion) {
        public Settings {
            if (candidates < 1) {
                throw new IllegalArgumentException("candidates must be ≥ 1, was " + candidates);
            }
        }

        public static Settings defaults() {
            return new Settings(50, 0.3f, Fusion.rrf(60));
        }
    }

    /**
     * How two rankings become one. {@code RRF}: reciprocal rank fusion, Σ 1/(k + rank) — needs no
     * score calibration between BM25 and cosine. {@code WEIGHTED}: {@code weight} × cosine + (1 −
     * weight) × BM25 / best BM25 of the query.
     */
    public record Fusion(Kind kind, int k, double weight) {
        public enum Kind {
            RRF,
            WEIGHTED
        }

        public static Fusion rrf(int k) {
            return new Fusion(Kind.RRF, k, 0);
        }

        public static Fusion weighted(double semanticWeight) {
            return new Fusion(Kind.WEIGHTED, 0, semanticWeight);
        }
    }

    public IncidentIndex(Embedder embedder, JsonMapper json, Settings settings) {
        this(new ByteBuffersDirectory(), embedder, json, settings);
    }

    /** On a directory of its own (an empty one: the index is rebuilt, never reopened). */
    public IncidentIndex(Directory directory, Embedder embedder, JsonMapper json, Settings settings) {
        this.directory = directory;
        this.embedder = embedder;
        this.json = json;
        this.settings = settings;
        try {
            IndexWriterConfig config = new IndexWriterConfig(analyzer)
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                    .setRAMBufferSizeMB(32);
            this.writer = new IndexWriter(directory, config);
            this.searchers = new SearcherManager(writer, null);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the incident index", e);
        }
    }

    /** Indexes (or replaces) a resolved incident's record, embedding its symptoms. */
    public void put(ResolutionRecord r) {
        put(r, embedder.embed(ResolutionRecords.symptoms(r)));
    }

    /** Indexes a record with a vector already computed by this index's model (bulk loads, benchmarks). */
    public void put(ResolutionRecord r, float[] vector) {
        Document d = new Document();
        d.add(new StringField(ID, r.incidentId(), Field.Store.YES));
        d.add(new TextField(SYMPTOMS, ResolutionRecords.symptoms(r), Field.Store.NO));
        d.add(new TextField(CAUSE, ResolutionRecords.cause(r), Field.Store.NO));
        d.add(new StringField(KIND, r.targetKind().toUpperCase(Locale.ROOT), Field.Store.NO));
        d.add(new StringField(SERVICE, r.service().toLowerCase(Locale.ROOT), Field.Store.NO));
        d.add(new StringField(NAMESPACE, r.namespace().toLowerCase(Locale.ROOT), Field.Store.NO));
        long resolved = r.resolvedAt() == null ? 0 : r.resolvedAt().toEpochMilli();
        d.add(new LongField(RESOLVED_AT, resolved, Field.Store.NO));
        d.add(new KnnFloatVectorField(VECTOR, vector, VectorSimilarityFunction.DOT_PRODUCT));
        d.add(new StoredField(RECORD, json.writeValueAsString(r)));
        try {
            writer.updateDocument(new Term(ID, r.incidentId()), d);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot index incident " + r.incidentId(), e);
        }
        versions.put(r.incidentId(), r.version());
    }

    public void remove(String incidentId) {
        try {
            writer.deleteDocuments(new Term(ID, incidentId));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove incident " + incidentId, e);
        }
        versions.remove(incidentId);
    }

    /** The version of the incident indexed, or -1. */
    public long indexedVersion(String incidentId) {
        return versions.getOrDefault(incidentId, -1L);
    }

    /** Ids indexed now. */
    public java.util.Set<String> ids() {
        return java.util.Set.copyOf(versions.keySet());
    }

    /** Makes what was put or removed visible to searches. */
    public void refresh() {
        try {
            searchers.maybeRefreshBlocking();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot refresh the incident index", e);
        }
    }

    public int size() {
        return versions.size();
    }

    /** Bytes the index takes: its files (on the heap for the in-memory directory) and its buffers. */
    public long sizeBytes() {
        long total = writer.ramBytesUsed();
        try {
            for (String f : directory.listAll()) {
                total += directory.fileLength(f);
            }
        } catch (IOException e) {
            // A merge deleted a file while we listed: the figure is an estimate anyway.
        }
        return total;
    }

    /** The past incidents most like the query, best first, at most {@code query.limit()}. */
    public List<SimilarIncident> search(SimilarQuery query) {
        String text =
                query.text().length() > MAX_QUERY_CHARS ? query.text().substring(0, MAX_QUERY_CHARS) : query.text();
        Query filter = filter(query);
        IndexSearcher searcher;
        try {
            searcher = searchers.acquire();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Map<Integer, Double> lexical = new LinkedHashMap<>();
            Map<Integer, Double> semantic = new LinkedHashMap<>();
            float[] vector = null;
            if (query.mode() != SimilarQuery.Mode.SEMANTIC) {
                Query q = lexicalQuery(text, filter);
                if (q != null) {
                    for (ScoreDoc sd : searcher.search(q, settings.candidates()).scoreDocs) {
                        lexical.put(sd.doc, (double) sd.score);
                    }
                }
            }
            if (query.mode() != SimilarQuery.Mode.LEXICAL) {
                vector = embedder.embed(text);
                Query knn = new KnnFloatVectorQuery(VECTOR, vector, settings.candidates(), filter);
                for (ScoreDoc sd : searcher.search(knn, settings.candidates()).scoreDocs) {
                    // DOT_PRODUCT scores are (1 + cosine) / 2 for unit vectors.
                    semantic.put(sd.doc, 2.0 * sd.score - 1.0);
                }
            }
            List<Scored> fused = fuse(lexical, semantic);
            List<Scored> top = fused.subList(0, Math.min(query.limit(), fused.size()));
            Map<Integer, Double> cosine = vector == null ? Map.of() : cosines(searcher, top, semantic, vector);
            List<SimilarIncident> out = new ArrayList<>();
            for (Scored s : top) {
                String stored = searcher.storedFields().document(s.doc).get(RECORD);
                out.add(new SimilarIncident(
                        json.readValue(stored, ResolutionRecord.class),
                        s.score,
                        s.lexicalRank,
                        s.semanticRank,
                        cosine.getOrDefault(s.doc, Double.NaN)));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("incident index search failed", e);
        } finally {
            try {
                searchers.release(searcher);
            } catch (IOException e) {
                // Releasing only decrements a reference count.
            }
        }
    }

    private record Scored(
            int doc,
            double score,
            @Nullable Integer lexicalRank,
            @Nullable Integer semanticRank) {}

    private List<Scored> fuse(Map<Integer, Double> lexical, Map<Integer, Double> semantic) {
        Map<Integer, Integer> lexRank = ranks(lexical);
        Map<Integer, Integer> semRank = ranks(semantic);
        double bestLexical =
                lexical.values().stream().mapToDouble(Double::doubleValue).max().orElse(1.0);
        Map<Integer, Double> score = new HashMap<>();
        Fusion f = settings.fusion();
        for (int doc : union(lexical, semantic)) {
            double s = 0;
            Integer lr = lexRank.get(doc);
            Integer sr = semRank.get(doc);
            if (f.kind() == Fusion.Kind.RRF) {
                s += lr == null ? 0 : 1.0 / (f.k() + lr);
                s += sr == null ? 0 : 1.0 / (f.k() + sr);
            } else {
                s += lr == null ? 0 : (1 - f.weight()) * lexical.get(doc) / bestLexical;
                s += sr == null ? 0 : f.weight() * Math.max(0, semantic.get(doc));
            }
            score.put(doc, s);
        }
        List<Scored> out = new ArrayList<>();
        score.forEach((doc, s) -> out.add(new Scored(doc, s, lexRank.get(doc), semRank.get(doc))));
        out.sort(Comparator.comparingDouble(Scored::score).reversed().thenComparingInt(Scored::doc));
        return out;
    }

    /** Cosine of the query to each result: from the semantic ranking, or one exact search over the rest. */
    private Map<Integer, Double> cosines(
            IndexSearcher searcher, List<Scored> top, Map<Integer, Double> semantic, float[] vector)
            throws IOException {
        Map<Integer, Double> out = new HashMap<>();
        List<BytesRef> missing = new ArrayList<>();
        for (Scored s : top) {
            Double c = semantic.get(s.doc);
            if (c != null) {
                out.put(s.doc, c);
            } else {
                missing.add(new BytesRef(searcher.storedFields().document(s.doc).get(ID)));
            }
        }
        if (!missing.isEmpty()) {
            Query only = new TermInSetQuery(ID, missing);
            for (ScoreDoc sd : searcher.search(
                            new KnnFloatVectorQuery(VECTOR, vector, missing.size(), only), missing.size())
                    .scoreDocs) {
                out.put(sd.doc, 2.0 * sd.score - 1.0);
            }
        }
        return out;
    }

    private @Nullable Query lexicalQuery(String text, Query filter) {
        QueryBuilder builder = new QueryBuilder(analyzer);
        Query symptoms = builder.createBooleanQuery(SYMPTOMS, text);
        Query cause = builder.createBooleanQuery(CAUSE, text);
        if (symptoms == null && cause == null) {
            return null;
        }
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        if (symptoms != null) {
            b.add(symptoms, Occur.SHOULD);
        }
        if (cause != null && settings.causeBoost() > 0) {
            b.add(new BoostQuery(cause, settings.causeBoost()), Occur.SHOULD);
        }
        b.add(filter, Occur.FILTER);
        return b.build();
    }

    private static Query filter(SimilarQuery q) {
        BooleanQuery.Builder b = new BooleanQuery.Builder();
        b.add(new MatchAllDocsQuery(), Occur.FILTER);
        if (q.excludeId() != null) {
            b.add(new TermQuery(new Term(ID, q.excludeId())), Occur.MUST_NOT);
        }
        if (q.targetKind() != null) {
            b.add(new TermQuery(new Term(KIND, q.targetKind())), Occur.FILTER);
        }
        if (q.service() != null) {
            b.add(new TermQuery(new Term(SERVICE, q.service())), Occur.FILTER);
        }
        if (q.namespace() != null) {
            b.add(new TermQuery(new Term(NAMESPACE, q.namespace())), Occur.FILTER);
        }
        if (q.since() != null) {
            b.add(LongField.newRangeQuery(RESOLVED_AT, q.since().toEpochMilli(), Long.MAX_VALUE), Occur.FILTER);
        }
        return b.build();
    }

    private static Map<Integer, Integer> ranks(Map<Integer, Double> scores) {
        Map<Integer, Integer> out = new HashMap<>();
        int rank = 1;
        for (int doc : scores.keySet()) {
            out.put(doc, rank++);
        }
        return out;
    }

    private static java.util.Set<Integer> union(Map<Integer, Double> a, Map<Integer, Double> b) {
        java.util.Set<Integer> out = new java.util.LinkedHashSet<>(a.keySet());
        out.addAll(b.keySet());
        return out;
    }

    @Override
    public void close() {
        try {
            searchers.close();
            writer.close();
            directory.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the incident index", e);
        }
    }
}
