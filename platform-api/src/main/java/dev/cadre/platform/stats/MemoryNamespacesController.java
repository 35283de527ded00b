package dev.cadre.platform.stats;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The namespaces of shared memory with their sizes — what the memory API's per-namespace listing
 * cannot tell: which namespaces exist at all. Read straight from the memory tables.
 */
@RestController
class MemoryNamespacesController {

    private final JdbcClient jdbc;

    MemoryNamespacesController(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * {@code entries} counts live keys, {@code deleted} tombstones, {@code versions} every version
     * ever written; {@code lastUpdatedAt} is the newest write.
     */
    record NamespaceView(
            String namespace,
            long entries,
            long deleted,
            long versions,
            @Nullable Instant lastUpdatedAt) {}

    record NamespacesView(List<NamespaceView> namespaces) {}

    @GetMapping("/api/v1/memory")
    NamespacesView namespaces() {
        List<NamespaceView> list = jdbc.sql("SELECT e.namespace,"
                        + " SUM(CASE WHEN e.value_json IS NULL THEN 0 ELSE 1 END) AS entries,"
                        + " SUM(CASE WHEN e.value_json IS NULL THEN 1 ELSE 0 END) AS deleted,"
                        + " SUM(e.version) AS versions,"
                        + " MAX(e.updated_at) AS last_updated"
                        + " FROM cadre_memory_entry e GROUP BY e.namespace ORDER BY e.namespace")
                .query((rs, i) -> {
                    Timestamp last = rs.getTimestamp("last_updated");
                    return new NamespaceView(
                            rs.getString("namespace"),
                            rs.getLong("entries"),
                            rs.getLong("deleted"),
                            rs.getLong("versions"),
                            last == null ? null : last.toInstant());
                })
                .list();
        return new NamespacesView(list);
    }
}
