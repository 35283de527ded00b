package dev.cadre.platform.observability;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format (tests only): every line must be a
 * comment, blank, or {@code name{labels} value [timestamp]}, or parsing fails.
 */
final class PrometheusText {

    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern SAMPLE =
            Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)(\\s+-?\\d+)?");
    private static final Pattern LABEL =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"\\s*,?\\s*");

    static Map<String, List<Sample>> parse(String text) {
        Map<String, List<Sample>> out = new LinkedHashMap<>();
        int n = 0;
        for (String line : text.split("\n")) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) {
                throw new AssertionError("line " + n + " is not valid exposition format: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null && !m.group(3).isEmpty()) {
                Matcher l = LABEL.matcher(m.group(3));
                int end = 0;
                while (l.lookingAt()) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                    l.region(end, m.group(3).length());
                }
                if (end != m.group(3).length()) {
                    throw new AssertionError("line " + n + " has malformed labels: " + line);
                }
            }
            double value = switch (m.group(4)) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                case "NaN" -> Double.NaN;
                default -> Double.parseDouble(m.group(4));
            };
            out.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(new Sample(m.group(1), labels, value));
        }
        return out;
    }

    /** Sum of the samples of {@code name} whose labels include {@code match}. */
    static double value(Map<String, List<Sample>> metrics, String name, Map<String, String> match) {
        return metrics.getOrDefault(name, List.of()).stream()
                .filter(s -> s.labels().entrySet().containsAll(match.entrySet()))
                .mapToDouble(Sample::value)
                .sum();
    }
}
