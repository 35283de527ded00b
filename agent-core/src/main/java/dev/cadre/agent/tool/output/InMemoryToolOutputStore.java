package dev.cadre.agent.tool.output;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Keeps tool outputs in this process, up to a total size: past it the oldest outputs are dropped (a
 * handle then reads as not found). For a runner without a database; lost on restart.
 */
public final class InMemoryToolOutputStore implements ToolOutputStore {

    private record Key(String runId, String handle) {}

    private record Entry(ToolOutputInfo info, List<ToolOutputChunk> chunks, long bytes) {}

    private final long maxTotalBytes;
    // Insertion order is age: the first entries are evicted first.
    private final LinkedHashMap<Key, Entry> outputs = new LinkedHashMap<>();
    private long totalBytes;

    /** @param maxTotalBytes the most kept of all outputs together, in UTF-16 chars x 2 (heap bytes) */
    public InMemoryToolOutputStore(long maxTotalBytes) {
        if (maxTotalBytes <= 0) {
            throw new IllegalArgumentException("maxTotalBytes must be positive, was " + maxTotalBytes);
        }
        this.maxTotalBytes = maxTotalBytes;
    }

    /** A store of at most 256 MiB. */
    public InMemoryToolOutputStore() {
        this(256L * 1024 * 1024);
    }

    @Override
    public synchronized void save(ToolOutputInfo info, List<ToolOutputChunk> chunks) {
        long bytes = 0;
        for (ToolOutputChunk c : chunks) {
            bytes += 2L * c.text().length();
        }
        Key key = new Key(info.runId(), info.handle());
        Entry old = outputs.remove(key);
        if (old != null) {
            totalBytes -= old.bytes();
        }
        outputs.put(key, new Entry(info, List.copyOf(chunks), bytes));
        totalBytes += bytes;
        Iterator<Map.Entry<Key, Entry>> oldest = outputs.entrySet().iterator();
        while (totalBytes > maxTotalBytes && oldest.hasNext()) {
            Map.Entry<Key, Entry> e = oldest.next();
            if (e.getKey().equals(key)) {
                continue;
            }
            totalBytes -= e.getValue().bytes();
            oldest.remove();
        }
    }

    @Override
    public synchronized @Nullable ToolOutputInfo find(String runId, String handle) {
        Entry e = outputs.get(new Key(runId, handle));
        return e == null ? null : e.info();
    }

    @Override
    public synchronized List<ToolOutputChunk> chunks(String runId, String handle, long fromLine, int max) {
        Entry e = outputs.get(new Key(runId, handle));
        if (e == null) {
            return List.of();
        }
        List<ToolOutputChunk> out = new ArrayList<>(Math.min(max, e.chunks().size()));
        for (ToolOutputChunk c : e.chunks()) {
            if (out.size() >= max) {
                break;
            }
            if (c.firstLine() + c.lineCount() > fromLine) {
                out.add(c);
            }
        }
        return out;
    }

    /** Heap bytes of the outputs kept now. */
    public synchronized long totalBytes() {
        return totalBytes;
    }
}
