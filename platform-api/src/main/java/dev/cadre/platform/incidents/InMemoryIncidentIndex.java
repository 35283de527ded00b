package dev.cadre.platform.incidents;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/** The incident index in this process (a platform without a database, unit tests). */
public final class InMemoryIncidentIndex implements IncidentIndex {

    private final Map<String, Row> rows = new ConcurrentHashMap<>();

    @Override
    public void put(Row row) {
        rows.put(row.id(), row);
    }

    @Override
    public List<Row> page(Filter filter, @Nullable Instant afterOpenedAt, @Nullable String afterId, int limit) {
        Comparator<Row> newestFirst =
                Comparator.comparing(Row::openedAt).thenComparing(Row::id).reversed();
        List<Row> out = new ArrayList<>();
        rows.values().stream()
                .filter(r -> filter.statuses().isEmpty() || filter.statuses().contains(r.status()))
                .filter(r -> filter.severity() == null || filter.severity().equals(r.severity()))
                .filter(r -> filter.source() == null || filter.source().equals(r.source()))
                .filter(r -> filter.since() == null || !r.openedAt().isBefore(filter.since()))
                .filter(r -> afterOpenedAt == null
                        || r.openedAt().isBefore(afterOpenedAt)
                        || (r.openedAt().equals(afterOpenedAt) && r.id().compareTo(afterId) < 0))
                .sorted(newestFirst)
                .limit(limit)
                .forEach(out::add);
        return out;
    }

    @Override
    public long size() {
        return rows.size();
    }
}
