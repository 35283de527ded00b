package dev.cadre.platform.memory;

import dev.cadre.memory.NamespaceSummary;
import dev.cadre.memory.SharedMemory;
import io.swagger.v3.oas.annotations.Operation;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The namespaces of shared memory with their sizes — what the memory API's per-namespace listing
 * cannot tell: which namespaces exist at all. Asked of {@link SharedMemory#namespaces()}, the
 * owner of memory's tables.
 */
@RestController
class MemoryNamespacesController {

    private final SharedMemory memory;

    MemoryNamespacesController(SharedMemory memory) {
        this.memory = memory;
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
            @Nullable Instant lastUpdatedAt) {
        static NamespaceView of(NamespaceSummary s) {
            return new NamespaceView(s.namespace(), s.entries(), s.deleted(), s.versions(), s.lastUpdatedAt());
        }
    }

    record NamespacesView(List<NamespaceView> namespaces) {}

    @Operation(summary = "List memory namespaces")
    @GetMapping("/api/v1/memory")
    NamespacesView namespaces() {
        return new NamespacesView(
                memory.namespaces().stream().map(NamespaceView::of).toList());
    }
}
