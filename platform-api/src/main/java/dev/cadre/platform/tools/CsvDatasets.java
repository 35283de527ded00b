package dev.cadre.platform.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.springframework.core.io.Resource;

/**
 * Read-only tables for {@code csv_query}, loaded once at start-up from CSV files (the file name
 * without {@code .csv} is the dataset's name). The format is deliberately plain: a header row, then
 * one row per line, fields separated by commas, no quoting — a file that is not so is refused at
 * start-up naming the file and line.
 */
final class CsvDatasets {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,63}");

    /** One table: its columns in file order and its rows (column → text), never modified. */
    record Dataset(String name, List<String> columns, List<Map<String, String>> rows) {}

    private final Map<String, Dataset> byName;

    private CsvDatasets(Map<String, Dataset> byName) {
        this.byName = Map.copyOf(byName);
    }

    static CsvDatasets load(List<Resource> files) {
        Map<String, Dataset> out = new LinkedHashMap<>();
        for (Resource file : files) {
            String filename = String.valueOf(file.getFilename());
            String name = filename.endsWith(".csv") ? filename.substring(0, filename.length() - 4) : filename;
            if (!NAME.matcher(name).matches()) {
                throw new IllegalStateException("dataset " + filename + ": name must match " + NAME.pattern());
            }
            try (InputStream in = file.getInputStream()) {
                Dataset d = parse(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
                if (out.put(name, d) != null) {
                    throw new IllegalStateException("dataset " + name + " is defined twice");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("dataset " + filename + " cannot be read", e);
            }
        }
        return new CsvDatasets(out);
    }

    static Dataset parse(String name, String text) {
        String[] lines = text.split("\\R");
        if (lines.length == 0 || lines[0].isBlank()) {
            throw new IllegalStateException("dataset " + name + ": no header row");
        }
        List<String> columns = List.of(lines[0].strip().split(",", -1));
        for (String c : columns) {
            if (!c.matches("[a-z][a-z0-9_]*")) {
                throw new IllegalStateException("dataset " + name + ": column '" + c + "' is not a plain name");
            }
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            if (line.indexOf('"') >= 0) {
                throw new IllegalStateException(
                        "dataset " + name + ", line " + (i + 1) + ": quoted fields are not supported");
            }
            String[] fields = line.split(",", -1);
            if (fields.length != columns.size()) {
                throw new IllegalStateException("dataset " + name + ", line " + (i + 1) + ": " + fields.length
                        + " fields, the header has " + columns.size());
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < fields.length; c++) {
                row.put(columns.get(c), fields[c]);
            }
            rows.add(java.util.Collections.unmodifiableMap(row));
        }
        return new Dataset(name, columns, List.copyOf(rows));
    }

    java.util.Optional<Dataset> find(String name) {
        return java.util.Optional.ofNullable(byName.get(name));
    }

    List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }
}
