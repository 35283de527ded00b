package dev.cadre.platform.storage;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Daily range partitions of one PostgreSQL table (V10 of {@code db/vendor/postgresql} makes the
 * run events and spans such tables): creates the coming days' partitions ahead of time and drops
 * whole partitions once all their rows are past retention, which frees the space at once instead
 * of leaving dead rows for VACUUM. The table's owner gives its name and a way to run SQL, so the
 * owner stays the only class that names its table.
 *
 * <p>Rows of runs retention must keep are copied out before their partition goes: the partition is
 * detached first, so its range is uncovered and the copies land in the table's DEFAULT partition,
 * where batched deletes remove them once they may go. Detach, copy and drop are one statement (a
 * DO block), so a crash leaves the partition either attached or gone.
 */
public final class DailyPartitions {

    /** How the partition key is stored. */
    public enum Key {
        /** {@code TIMESTAMP WITH TIME ZONE}. */
        TIMESTAMP,
        /** {@code BIGINT} nanoseconds since the epoch. */
        EPOCH_NANOS
    }

    /** The few SQL calls this needs, run by the table's owner (autocommit). */
    public interface Sql {
        List<List<Object>> query(String sql, List<Object> params);

        void execute(String sql);
    }

    /** One partition: its name and upper bound (null: the DEFAULT partition or unbounded). */
    public record Partition(String name, @Nullable Instant upper, boolean isDefault) {}

    private static final Pattern UPPER = Pattern.compile("TO \\('?([^')]+)'?\\)");
    private static final DateTimeFormatter PG_TIMESTAMP =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSS][XXX][X]");
    private static final DateTimeFormatter UTC_LITERAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'+00'");
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;

    private final String table;
    private final Key key;
    private final String runColumn;
    private final Sql sql;

    public DailyPartitions(String table, Key key, String runColumn, Sql sql) {
        this.table = table;
        this.key = key;
        this.runColumn = runColumn;
        this.sql = sql;
    }

    public String table() {
        return table;
    }

    /** Whether the table is partitioned here (PostgreSQL after V10); false on H2. */
    public boolean partitioned() {
        try {
            List<List<Object>> rows =
                    sql.query("SELECT relkind::text FROM pg_class WHERE oid = to_regclass(?)", List.of(table));
            return !rows.isEmpty() && "p".equals(String.valueOf(rows.getFirst().getFirst()));
        } catch (RuntimeException notPostgres) {
            return false;
        }
    }

    public List<Partition> list() {
        List<Partition> out = new ArrayList<>();
        for (List<Object> row : sql.query(
                "SELECT c.relname::text, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i"
                        + " JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass(?) ORDER BY 1",
                List.of(table))) {
            String name = (String) row.get(0);
            String bound = String.valueOf(row.get(1));
            if (bound.equals("DEFAULT")) {
                out.add(new Partition(name, null, true));
                continue;
            }
            Matcher m = UPPER.matcher(bound);
            out.add(new Partition(name, m.find() ? parse(m.group(1)) : null, false));
        }
        return out;
    }

    /** Creates the partitions of today and the next {@code days} days that do not exist yet; returns how many. */
    public int createAhead(Instant now, int days) {
        List<Partition> existing = list();
        Instant covered = existing.stream()
                .filter(p -> !p.isDefault() && p.upper() != null)
                .map(Partition::upper)
                .max(Instant::compareTo)
                .orElse(Instant.EPOCH);
        LocalDate today = LocalDate.ofInstant(now, ZoneOffset.UTC);
        int created = 0;
        for (int d = 0; d <= days; d++) {
            Instant start = today.plusDays(d).atStartOfDay().toInstant(ZoneOffset.UTC);
            Instant end = start.plus(1, ChronoUnit.DAYS);
            if (!end.isAfter(covered)) {
                continue; // already covered (by a daily partition or the pre-partitioning one)
            }
            Instant from = start.isBefore(covered) ? covered : start;
            String name = table + "_p" + DAY.format(today.plusDays(d));
            sql.execute("CREATE TABLE IF NOT EXISTS " + name + " PARTITION OF " + table + " FOR VALUES FROM ("
                    + literal(from) + ") TO (" + literal(end) + ")");
            covered = end;
            created++;
        }
        return created;
    }

    /**
     * Drops every partition whose rows are all older than {@code before}, keeping (moving to the
     * DEFAULT partition) the rows of {@code keepRuns}; returns rows (PostgreSQL's estimate) and bytes.
     */
    public Removed dropBefore(Instant before, Set<String> keepRuns) {
        Removed removed = Removed.NONE;
        for (Partition p : list()) {
            if (p.isDefault() || p.upper() == null || p.upper().isAfter(before)) {
                continue;
            }
            List<Object> size = sql.query(
                            "SELECT pg_total_relation_size(to_regclass(?)),"
                                    + " (SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(?))",
                            List.of(p.name(), p.name()))
                    .getFirst();
            long bytes = ((Number) size.get(0)).longValue();
            long rows = ((Number) size.get(1)).longValue();
            if (rows < 0) { // never analysed: count it (once, just before it goes)
                rows = ((Number) sql.query("SELECT COUNT(*) FROM " + p.name(), List.of())
                                .getFirst()
                                .getFirst())
                        .longValue();
            }
            long kept = keepRuns.isEmpty()
                    ? 0
                    : ((Number) sql.query(
                                            "SELECT COUNT(*) FROM " + p.name() + " WHERE " + runColumn + " IN ("
                                                    + KeyLists.placeholders(1, keepRuns.size()) + ")",
                                            List.copyOf(keepRuns))
                                    .getFirst()
                                    .getFirst())
                            .longValue();
            StringBuilder block = new StringBuilder("DO $$ BEGIN ALTER TABLE ")
                    .append(table)
                    .append(" DETACH PARTITION ")
                    .append(p.name())
                    .append("; ");
            if (kept > 0) {
                block.append("INSERT INTO ")
                        .append(table)
                        .append(" SELECT * FROM ")
                        .append(p.name())
                        .append(" WHERE ")
                        .append(runColumn)
                        .append(" IN (")
                        .append(String.join(
                                ", ",
                                keepRuns.stream().map(DailyPartitions::quote).toList()))
                        .append("); ");
            }
            block.append("DROP TABLE ").append(p.name()).append("; END $$");
            sql.execute(block.toString());
            removed = removed.plus(new Removed(Math.max(0, rows - kept), bytes));
        }
        return removed;
    }

    private String literal(Instant at) {
        return switch (key) {
            case TIMESTAMP -> "'" + OffsetDateTime.ofInstant(at, ZoneOffset.UTC).format(UTC_LITERAL) + "'";
            case EPOCH_NANOS -> Long.toString(at.getEpochSecond() * 1_000_000_000L + at.getNano());
        };
    }

    private @Nullable Instant parse(String bound) {
        if (bound.equals("MAXVALUE") || bound.equals("MINVALUE")) {
            return null;
        }
        return switch (key) {
            case TIMESTAMP -> OffsetDateTime.parse(bound, PG_TIMESTAMP).toInstant();
            case EPOCH_NANOS -> {
                long nanos = Long.parseLong(bound);
                yield Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
            }
        };
    }

    private static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
