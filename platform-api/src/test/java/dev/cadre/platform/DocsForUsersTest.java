package dev.cadre.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README and {@code docs/} speak to users: no references that only the project's own tracker and
 * notes explain (issue numbers, seed file names, design-note sections). The test names each file and
 * line, so the sentence can be rewritten for users.
 */
class DocsForUsersTest {

    private static final Pattern INTERNAL = Pattern.compile(
            "(?i:\\bissues? #?\\d+|\\bissue-\\d+|\\bseeds? 0\\d\\d\\b|\\bseed-0\\d\\d)|\\bDESIGN(\\.md)?\\b|§\\s*\\d");

    @Test
    void readmeAndDocs_citeNoIssueNumbersSeedFilesOrDesignSections() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("../README.md")));
        try (Stream<Path> docs = Files.walk(Path.of("../docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> found = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                var m = INTERNAL.matcher(lines.get(i));
                if (m.find()) {
                    found.add(page.normalize() + ":" + (i + 1) + ": '" + m.group() + "'");
                }
            }
        }
        assertThat(pages).hasSizeGreaterThan(10);
        assertThat(found).as("internal references in user documentation").isEmpty();
    }
}
