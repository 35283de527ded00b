package dev.cadre.platform.recall;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.json.JsonMapper;

/**
 * The incident memory's benchmark ({@code -Dbench=platform-api -Dbench.args=--only=recall}):
 *
 * <ol>
 *   <li>Quality on the labelled set (341 past incidents, 31 classes, 93 paraphrased queries): recall@1,
 *       recall@3, MRR and nDCG@10 for lexical, semantic and hybrid ranking, queries with the alert and a
 *       first finding and with the alert alone, and the fusion variants compared.
 *   <li>Scale at {@code --recall-size=100000} past incidents from the same generator (same classes, more
 *       hosts, numbers and combinations): every symptom text embedded once by the real model with the
 *       vectors cached under {@code ~/.cache/cadre-test/recall} (keyed by the text's hash, so a rerun
 *       skips the embedding); the ingest cost per resolution (embedding + index write + refresh), the
 *       index's memory (heap growth after GC, and its own byte count), and the latency of one
 *       retrieval (query embedding + both rankings + fusion) over {@code --recall-queries=1000} queries
 *       after 200 warm-up ones, p50/p95/p99, for each mode. Load averages are printed with the figures.
 * </ol>
 */
public final class RecallBench {

    private RecallBench() {}

    public static void run(List<String> options) throws Exception {
        int size = intOption(options, "--recall-size=", options.contains("--quick") ? 5_000 : 100_000);
        int queryCount = intOption(options, "--recall-queries=", options.contains("--quick") ? 200 : 1_000);
        JsonMapper json = JsonMapper.builder().build();
        System.out.printf(
                Locale.ROOT,
                "recall benchmark — JDK %s, %d cores, max heap %d MB, load average %.2f%n",
                Runtime.version(),
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() >> 20,
                load());
        Embedder model = new MiniLmEmbedder();
        if (!options.contains("--recall-scale-only")) {
            quality(json, model);
        }
        scale(json, model, size, queryCount, options);
        System.out.printf(Locale.ROOT, "recall benchmark done, load average %.2f%n", load());
    }

    // ---------------------------------------------------------------- quality

    private static void quality(JsonMapper json, Embedder model) throws IOException {
        RecallDataset.Set_ set;
        try (InputStream in = RecallBench.class.getResourceAsStream(RecallDataset.RESOURCE)) {
            set = RecallDataset.fromJson(json.readTree(in));
        }
        Embedder cached = new CachingEmbedder(model);
        Map<String, Set<String>> relevant = set.relevant();
        System.out.println("\n## Quality on the labelled set (" + set.past().size() + " past, "
                + set.queries().size() + " queries, " + relevant.size() + " classes)\n");
        System.out.println("| settings | mode | queries | recall@1 | recall@3 | MRR | nDCG@10 |");
        System.out.println("|---|---|---|---:|---:|---:|---:|");
        List<IncidentIndex.Settings> variants = List.of(
                IncidentIndex.Settings.defaults(),
                new IncidentIndex.Settings(50, 0.3f, IncidentIndex.Fusion.weighted(0.5)),
                new IncidentIndex.Settings(50, 0.3f, IncidentIndex.Fusion.rrf(10)),
                new IncidentIndex.Settings(50, 0f, IncidentIndex.Fusion.rrf(60)),
                new IncidentIndex.Settings(50, 1f, IncidentIndex.Fusion.rrf(60)));
        boolean first = true;
        for (IncidentIndex.Settings settings : variants) {
            try (IncidentIndex index = new IncidentIndex(cached, json, settings)) {
                set.past().forEach(l -> index.put(ResolutionRecords.from(l.asIncident())));
                index.refresh();
                for (boolean withFinding : new boolean[] {true, false}) {
                    for (SimilarQuery.Mode mode : first
                            ? SimilarQuery.Mode.values()
                            : new SimilarQuery.Mode[] {SimilarQuery.Mode.LEXICAL, SimilarQuery.Mode.HYBRID}) {
                        RankingMetrics m = new RankingMetrics();
                        for (RecallDataset.Labelled q : set.queries()) {
                            ResolutionRecord r = ResolutionRecords.from(q.asIncident());
                            if (!withFinding) {
                                r = RecallRankingTest.withoutFindings(r);
                            }
                            m.add(
                                    ids(index.search(new SimilarQuery(
                                            ResolutionRecords.symptoms(r),
                                            r.incidentId(),
                                            null,
                                            null,
                                            null,
                                            null,
                                            10,
                                            mode))),
                                    relevant.get(q.failureClass()));
                        }
                        System.out.printf(
                                Locale.ROOT,
                                "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f |%n",
                                describe(settings),
                                mode.name().toLowerCase(Locale.ROOT),
                                withFinding ? "alert + finding" : "alert only",
                                m.recallAt1(),
                                m.recallAt3(),
                                m.mrr(),
                                m.ndcgAt10());
                    }
                }
            }
            first = false;
        }
    }

    private static String describe(IncidentIndex.Settings s) {
        String fusion = s.fusion().kind() == IncidentIndex.Fusion.Kind.RRF
                ? "RRF k=" + s.fusion().k()
                : "weighted " + s.fusion().weight() + " cosine";
        return fusion + ", cause boost " + s.causeBoost();
    }

    // ---------------------------------------------------------------- scale

    private static void scale(JsonMapper json, Embedder model, int size, int queryCount, List<String> options)
            throws Exception {
        int perClass = (size + FailureClasses.ALL.size() - 1) / FailureClasses.ALL.size();
        int queriesPerClass = (queryCount + 200 + FailureClasses.ALL.size() - 1) / FailureClasses.ALL.size();
        Path cacheDir = Path.of(System.getProperty("user.home"), ".cache", "cadre-test", "recall");
        Files.createDirectories(cacheDir);
        // --recall-embedded=N: embed only the first N texts with the model (rounded to whole rounds of the
        // classes) and give every later incident the vector of an embedded one of its own class plus
        // Gaussian noise (σ = 0.02 per dimension, renormalised: cosine ≈ 0.9 to its source) — for a machine
        // too busy to embed 100k texts in one sitting. Default: every text really embedded.
        int classes = FailureClasses.ALL.size();
        int embedded = intOption(options, "--recall-embedded=", perClass * classes);
        embedded = Math.max(classes, Math.min(perClass * classes, embedded / classes * classes));
        Path cache = cacheDir.resolve("vectors-seed" + RecallDataset.SEED + "-" + perClass + "-" + embedded + ".bin");
        System.out.println("\n## Scale: " + perClass * FailureClasses.ALL.size() + " past incidents\n");

        // 1. Vectors of every past incident's symptoms, by the real model, cached across runs.
        if (!Files.exists(cache)) {
            long t0 = System.nanoTime();
            List<String> texts = new ArrayList<>();
            new RecallDataset(json, RecallDataset.SEED)
                    .generate(
                            perClass,
                            0,
                            l -> texts.add(ResolutionRecords.symptoms(ResolutionRecords.from(l.asIncident()))),
                            q -> {});
            float[][] vectors = new float[texts.size()][];
            int threads = Runtime.getRuntime().availableProcessors();
            int real = embedded;
            try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
                AtomicInteger next = new AtomicInteger();
                List<Future<?>> parts = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    parts.add(pool.submit(() -> {
                        for (int i; (i = next.getAndIncrement()) < real; ) {
                            vectors[i] = model.embed(texts.get(i));
                            if (i % 10_000 == 0) {
                                System.out.println("  embedded " + i + " of " + texts.size());
                            }
                        }
                    }));
                }
                for (Future<?> f : parts) {
                    f.get();
                }
            }
            java.util.Random noise = new java.util.Random(RecallDataset.SEED);
            for (int i = real; i < vectors.length; i++) {
                float[] base = vectors[i % real];
                float[] v = new float[base.length];
                for (int k = 0; k < v.length; k++) {
                    v[k] = base[k] + (float) (noise.nextGaussian() * 0.02);
                }
                vectors[i] = MiniLmEmbedder.normalized(v);
            }
            Path tmp = cacheDir.resolve(cache.getFileName() + ".tmp");
            try (DataOutputStream out =
                    new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20))) {
                out.writeInt(vectors.length);
                out.writeInt(model.dimensions());
                for (float[] v : vectors) {
                    for (float x : v) {
                        out.writeFloat(x);
                    }
                }
            }
            Files.move(tmp, cache, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            System.out.printf(
                    Locale.ROOT,
                    "embedded %d of %d symptom texts with the model in %.1f s on %d threads, the rest derived (cached in %s)%n",
                    real,
                    texts.size(),
                    (System.nanoTime() - t0) / 1e9,
                    threads,
                    cache);
        }

        // 2. Bulk load with the cached vectors; heap growth = the index's memory.
        gc();
        long heapBefore = heapUsed();
        IncidentIndex index = new IncidentIndex(model, json, IncidentIndex.Settings.defaults());
        List<RecallDataset.Labelled> queries = new ArrayList<>();
        long t0 = System.nanoTime();
        try (DataInputStream in =
                new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(cache), 1 << 20))) {
            int n = in.readInt();
            int dim = in.readInt();
            AtomicInteger read = new AtomicInteger();
            new RecallDataset(json, RecallDataset.SEED)
                    .generate(
                            perClass,
                            queriesPerClass,
                            l -> {
                                try {
                                    float[] v = new float[dim];
                                    for (int k = 0; k < dim; k++) {
                                        v[k] = in.readFloat();
                                    }
                                    read.incrementAndGet();
                                    index.put(ResolutionRecords.from(l.asIncident()), v);
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            },
                            queries::add);
            if (read.get() != n) {
                throw new IllegalStateException("vector cache holds " + n + " vectors, the set " + read.get());
            }
        }
        index.refresh();
        double bulkSeconds = (System.nanoTime() - t0) / 1e9;
        gc();
        long heapAfter = heapUsed();
        System.out.printf(
                Locale.ROOT,
                "bulk load of %d records with cached vectors: %.1f s (%.2f ms each, HNSW graph included)%n",
                index.size(),
                bulkSeconds,
                bulkSeconds * 1000 / index.size());
        System.out.printf(
                Locale.ROOT,
                "index memory: heap growth after GC %.0f MB; the index's own bytes (files + buffers) %.0f MB; %.2f KB per incident%n",
                (heapAfter - heapBefore) / 1e6,
                index.sizeBytes() / 1e6,
                (heapAfter - heapBefore) / 1e3 / index.size());

        // 3. Latency of one retrieval, each mode; queries embedded inside the measurement (first time each).
        List<String> texts = queries.stream()
                .map(q -> ResolutionRecords.symptoms(ResolutionRecords.from(q.asIncident())))
                .toList();
        for (SimilarQuery.Mode mode :
                new SimilarQuery.Mode[] {SimilarQuery.Mode.HYBRID, SimilarQuery.Mode.LEXICAL, SimilarQuery.Mode.SEMANTIC
                }) {
            // No embedding cache: every measured query pays its embedding.
            {
                IncidentIndex fresh = index;
                for (int i = 0; i < 200; i++) {
                    fresh.search(new SimilarQuery(texts.get(i % texts.size()), null, null, null, null, null, 5, mode));
                }
                double before = load();
                long[] nanos = new long[queryCount];
                for (int i = 0; i < queryCount; i++) {
                    String text = texts.get((200 + i) % texts.size());
                    long s = System.nanoTime();
                    fresh.search(new SimilarQuery(text, null, null, null, null, null, 5, mode));
                    nanos[i] = System.nanoTime() - s;
                }
                Arrays.sort(nanos);
                System.out.printf(
                        Locale.ROOT,
                        "retrieval %-8s at %d: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d queries, load %.2f → %.2f)%n",
                        mode.name().toLowerCase(Locale.ROOT),
                        index.size(),
                        nanos[queryCount / 2] / 1e6,
                        nanos[(int) (queryCount * 0.95)] / 1e6,
                        nanos[(int) (queryCount * 0.99)] / 1e6,
                        nanos[queryCount - 1] / 1e6,
                        queryCount,
                        before,
                        load());
            }
        }

        // 4. Ingest cost per resolution as the service pays it: embed + write + refresh, on the full index.
        List<RecallDataset.Labelled> fresh = new ArrayList<>();
        new RecallDataset(json, RecallDataset.SEED + 1).generate(10, 0, fresh::add, q -> {});
        {
            IncidentIndex live = index;
            long[] nanos = new long[fresh.size()];
            for (int i = 0; i < fresh.size(); i++) {
                long s = System.nanoTime();
                live.put(ResolutionRecords.from(fresh.get(i).asIncident()));
                live.refresh();
                nanos[i] = System.nanoTime() - s;
            }
            Arrays.sort(nanos);
            System.out.printf(
                    Locale.ROOT,
                    "ingest per resolution (embed + index + refresh) at %d: p50 %.1f ms, p95 %.1f ms (%d resolutions, load %.2f)%n",
                    live.size(),
                    nanos[nanos.length / 2] / 1e6,
                    nanos[(int) (nanos.length * 0.95)] / 1e6,
                    nanos.length,
                    load());
        }
        index.close();
    }

    private static List<String> ids(List<SimilarIncident> hits) {
        return hits.stream().map(h -> h.record().incidentId()).toList();
    }

    private static void gc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static double load() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static int intOption(List<String> options, String prefix, int fallback) {
        return options.stream()
                .filter(o -> o.startsWith(prefix))
                .map(o -> Integer.parseInt(o.substring(prefix.length())))
                .findFirst()
                .orElse(fallback);
    }
}
