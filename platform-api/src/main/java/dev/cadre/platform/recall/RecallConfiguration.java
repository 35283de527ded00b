package dev.cadre.platform.recall;

import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.agents.ToolProvider;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.runs.RunStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.MMapDirectory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The incident memory. {@code cadre.recall.reconcile-interval} (PT15M; 0 turns the periodic re-read off),
 * {@code cadre.recall.index-dir} (empty: the index lives on the heap; a directory: memory-mapped files
 * there, emptied at start — for large histories), {@code cadre.recall.candidates} (50 per ranking before
 * fusion), {@code cadre.recall.cite-at} (0.6: the similarity from which {@code incident_similar} hands
 * the team a finding citing the best match).
 */
@Configuration(proxyBeanMethods = false)
class RecallConfiguration {

    @Bean
    Embedder recallEmbedder() {
        return new MiniLmEmbedder();
    }

    @Bean(initMethod = "start", destroyMethod = "close")
    RecallService recallService(
            IncidentService incidents,
            SharedMemory memory,
            JsonMapper json,
            Clock clock,
            Embedder embedder,
            @Value("${cadre.recall.reconcile-interval:PT15M}") Duration reconcile,
            @Value("${cadre.recall.index-dir:}") String indexDir,
            @Value("${cadre.recall.candidates:50}") int candidates) {
        IncidentIndex.Settings settings = new IncidentIndex.Settings(
                candidates,
                IncidentIndex.Settings.defaults().causeBoost(),
                IncidentIndex.Settings.defaults().fusion());
        return new RecallService(
                incidents,
                memory,
                json,
                new IncidentIndex(directory(indexDir), embedder, json, settings),
                clock,
                reconcile);
    }

    @Bean
    ToolProvider recallTools(
            RecallService recall,
            IncidentService incidents,
            RunStore runs,
            JsonMapper json,
            @Value("${cadre.recall.cite-at:0.6}") double citeAt) {
        if (citeAt < 0 || citeAt > 1) {
            throw new IllegalArgumentException("cadre.recall.cite-at must be between 0 and 1, was " + citeAt);
        }
        var tool = new SimilarIncidentTool(
                        recall, incidents, runId -> runs.find(runId).map(r -> r.context()), json, citeAt)
                .tool();
        return () -> List.of(tool);
    }

    private static Directory directory(String indexDir) {
        if (indexDir.isBlank()) {
            return new ByteBuffersDirectory();
        }
        try {
            Path dir = Files.createDirectories(Path.of(indexDir));
            return new MMapDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cadre.recall.index-dir " + indexDir + " cannot be used", e);
        }
    }
}
