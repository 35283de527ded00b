package dev.cadre.platform.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The committed labelled set is exactly what the seeded generator makes (regenerate it with
 * {@code -Drecall.regenerate=true} after changing {@link FailureClasses}), and its queries are
 * paraphrases: no query's summary or finding appears in any past incident.
 */
class RecallDatasetTest {

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void the_committed_set_is_the_generators_output() throws Exception {
        RecallDataset generator = new RecallDataset(json, RecallDataset.SEED);
        String generated =
                json.writerWithDefaultPrettyPrinter().writeValueAsString(generator.toJson(generator.generate(11, 3)))
                        + "\n";
        if (Boolean.getBoolean("recall.regenerate")) {
            java.nio.file.Files.writeString(
                    java.nio.file.Path.of("src/test/resources" + RecallDataset.RESOURCE), generated);
        }
        try (InputStream in = getClass().getResourceAsStream(RecallDataset.RESOURCE)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(generated);
        }
    }

    @Test
    void queries_use_words_the_past_never_used() throws Exception {
        RecallDataset.Set_ set;
        try (InputStream in = getClass().getResourceAsStream(RecallDataset.RESOURCE)) {
            set = RecallDataset.fromJson(json.readTree(in));
        }
        Set<String> pastTexts = set.past().stream()
                .flatMap(l -> java.util.stream.Stream.concat(
                        java.util.stream.Stream.of(l.incident().path("summary").asString()),
                        l.incident()
                                .path("findings")
                                .valueStream()
                                .map(f -> f.path("description").asString())))
                .collect(Collectors.toSet());
        for (RecallDataset.Labelled q : set.queries()) {
            assertThat(pastTexts).doesNotContain(q.incident().path("summary").asString());
            q.incident()
                    .path("findings")
                    .valueStream()
                    .filter(f -> !f.path("category").asString().equals("info"))
                    .forEach(f -> assertThat(pastTexts)
                            .doesNotContain(f.path("description").asString()));
        }
        assertThat(set.past().stream()
                        .map(RecallDataset.Labelled::failureClass)
                        .distinct()
                        .count())
                .isEqualTo(FailureClasses.ALL.size());
    }
}
