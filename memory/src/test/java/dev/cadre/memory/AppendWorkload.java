package dev.cadre.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The "append via CAS" workload and its checker. Each append reads a key, appends a unique integer
 * to the JSON array there and writes it back with the version it read. The checker proves from the
 * final state and the history that no acknowledged append was lost or duplicated, that no refused
 * append slipped in, and that the versions have no gaps.
 */
final class AppendWorkload {

    /** What the clients were told: which appends were acknowledged (with the version) or refused. */
    record Result(Map<Integer, Ack> acknowledged, Set<Integer> refused, Set<Integer> unknown, Set<String> keys) {}

    /** An acknowledged append: on which key, at which version. */
    record Ack(String key, long version) {}

    private AppendWorkload() {}

    /**
     * {@code threads} clients each make {@code perThread} appends to random keys, each append giving
     * up (refused) after {@code maxAttempts} conflicts.
     */
    static Result cas(SharedMemory memory, String ns, List<String> keys, int threads, int perThread, int maxAttempts)
            throws Exception {
        return cas(memory, ns, keys, threads, perThread, maxAttempts, 0);
    }

    /** As above, numbering the appended elements from {@code firstElement} (for concurrent workloads). */
    static Result cas(
            SharedMemory memory,
            String ns,
            List<String> keys,
            int threads,
            int perThread,
            int maxAttempts,
            int firstElement)
            throws Exception {
        Map<Integer, Ack> acknowledged = new ConcurrentHashMap<>();
        Set<Integer> refused = ConcurrentHashMap.newKeySet();
        Set<Integer> unknown = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    Writer writer = Writer.agent("appender-" + thread, "run-" + thread);
                    for (int i = 0; i < perThread; i++) {
                        int element = firstElement + thread * perThread + i;
                        String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                        boolean done = false;
                        for (int attempt = 0; attempt < maxAttempts && !done; attempt++) {
                            try {
                                // A possibly cached read: a stale one may only cost a conflict.
                                @Nullable
                                MemoryEntry current = memory.get(ns, key).orElse(null);
                                List<Integer> list = current == null ? new ArrayList<>() : parse(current.value());
                                list.add(element);
                                WriteOutcome outcome = memory.put(
                                        ns, key, list.toString(), current == null ? 0 : current.version(), writer);
                                if (outcome instanceof WriteOutcome.Written w) {
                                    acknowledged.put(element, new Ack(key, w.version()));
                                    done = true;
                                }
                            } catch (MemoryStorageException e) {
                                // The outcome is unknown: it may or may not have committed.
                                unknown.add(element);
                                done = true;
                            }
                        }
                        if (!done) {
                            refused.add(element);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(acknowledged, refused, unknown, Set.copyOf(keys));
    }

    /**
     * The negative control: clients append without optimistic locking. In each round all clients
     * read the same value, then one after another overwrite the key with the version current at that
     * moment (a "blind" write), so every write succeeds and all but the last append of a round are
     * lost. The checker must catch this.
     */
    static Result blind(SharedMemory memory, String ns, String key, int threads, int rounds) throws Exception {
        Map<Integer, Ack> acknowledged = new ConcurrentHashMap<>();
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ReentrantLock writeTurn = new ReentrantLock();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    Writer writer = Writer.agent("blind-" + thread, "run");
                    for (int round = 0; round < rounds; round++) {
                        int element = round * threads + thread;
                        @Nullable MemoryEntry read = memory.get(ns, key, true).orElse(null);
                        List<Integer> list = read == null ? new ArrayList<>() : parse(read.value());
                        list.add(element);
                        barrier.await();
                        writeTurn.lock();
                        try {
                            long latest = memory.get(ns, key, true)
                                    .map(MemoryEntry::version)
                                    .orElse(0L);
                            if (memory.put(ns, key, list.toString(), latest, writer)
                                    instanceof WriteOutcome.Written w) {
                                acknowledged.put(element, new Ack(key, w.version()));
                            }
                        } finally {
                            writeTurn.unlock();
                        }
                        barrier.await();
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(acknowledged, Set.of(), Set.of(), Set.of(key));
    }

    /** Two results of workloads that ran at the same time on the same keys, as one. */
    static Result merge(Result a, Result b) {
        Map<Integer, Ack> acknowledged = new HashMap<>(a.acknowledged());
        acknowledged.putAll(b.acknowledged());
        Set<Integer> refused = new HashSet<>(a.refused());
        refused.addAll(b.refused());
        Set<Integer> unknown = new HashSet<>(a.unknown());
        unknown.addAll(b.unknown());
        Set<String> keys = new HashSet<>(a.keys());
        keys.addAll(b.keys());
        return new Result(acknowledged, refused, unknown, keys);
    }

    /** Every violation found, empty when the run lost and invented nothing. */
    static List<String> check(SharedMemory memory, String ns, Result result) {
        List<String> violations = new ArrayList<>();
        Map<String, List<Integer>> finalLists = new HashMap<>();
        for (String key : result.keys()) {
            @Nullable MemoryEntry entry = memory.get(ns, key, true).orElse(null);
            List<Integer> list = entry == null ? List.of() : parse(entry.value());
            finalLists.put(key, list);
            Set<Integer> seen = new HashSet<>();
            for (int e : list) {
                if (!seen.add(e)) {
                    violations.add("append " + e + " present twice in " + key);
                }
                if (result.refused().contains(e)) {
                    violations.add("refused append " + e + " present in " + key);
                }
                if (!result.acknowledged().containsKey(e) && !result.unknown().contains(e)) {
                    violations.add("append " + e + " in " + key + " was never attempted");
                }
            }
            List<MemoryVersion> history = memory.history(ns, key);
            long finalVersion = entry == null ? 0 : entry.version();
            if (history.size() != finalVersion) {
                violations.add(key + " has version " + finalVersion + " but " + history.size() + " history rows");
            }
            List<Integer> replay = new ArrayList<>();
            for (int i = 0; i < history.size(); i++) {
                MemoryVersion v = history.get(i);
                if (v.version() != i + 1) {
                    violations.add(key + " history has a gap: version " + v.version() + " at position " + (i + 1));
                    break;
                }
                List<Integer> value = parse(v.value());
                if (value.size() != replay.size() + 1
                        || !value.subList(0, replay.size()).equals(replay)) {
                    violations.add(key + " version " + v.version() + " is not the previous value plus one append");
                }
                replay = value;
            }
            if (!replay.equals(list)) {
                violations.add(key + " history does not replay to the final value");
            }
        }
        for (var ack : result.acknowledged().entrySet()) {
            List<Integer> list = finalLists.getOrDefault(ack.getValue().key(), List.of());
            if (!list.contains(ack.getKey())) {
                violations.add("acknowledged append " + ack.getKey() + " missing from "
                        + ack.getValue().key());
                continue;
            }
            // The version a client was told must be the version that added its element.
            long v = ack.getValue().version();
            if (v < 1
                    || v > list.size()
                    || list.get((int) v - 1) != ack.getKey().intValue()) {
                violations.add("append " + ack.getKey() + " acknowledged at version " + v + " of "
                        + ack.getValue().key() + " but added at another");
            }
        }
        return violations;
    }

    static List<Integer> parse(@Nullable String json) {
        List<Integer> out = new ArrayList<>();
        if (json == null) {
            return out;
        }
        String body = json.trim();
        body = body.substring(1, body.length() - 1).trim();
        if (body.isEmpty()) {
            return out;
        }
        for (String part : body.split(",")) {
            out.add(Integer.parseInt(part.trim()));
        }
        return out;
    }
}
