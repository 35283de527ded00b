package dev.cadre.platform.replay;

import dev.cadre.agent.approval.CanonicalJson;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * A case's YAML with only what genuinely differs between two recordings of one scenario made uniform,
 * so the shipped suite can be compared with a fresh recording: the recorded run's id ({@code <run>}),
 * earlier runs' ids ({@code <earlier-run>}), the incident's id ({@code <incident>}), a notification's delivery id ({@code <delivery>}), clock readings
 * ({@code <time>}), the mock API server's resource versions and object ages ({@code <rv>}, {@code
 * <age>}), how long a runbook took ({@code <ms>}), texts the platform clipped ("…": where the clip falls moves with the length of the ids and
 * times before it), and the order of calls, subagents, actions and decisions a turn ran in parallel.
 * Tool names, arguments, outputs, findings, the incident record, decisions and the answer must match.
 */
final class CaseNormaliser {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Map<Pattern, String> VARIABLE = new LinkedHashMap<>();
    private static final Set<String> UNORDERED = Set.of("calls", "subagents", "actions", "decisions");

    static {
        // A JSON string literal (inside a tool output or an answer) the platform clipped.
        // Possessive runs: a plain alternation recurses once per character and overflows the stack on a long output.
        VARIABLE.put(Pattern.compile("\"(?:[^\"\\\\…]++|\\\\.)*+…(?:[^\"\\\\]++|\\\\.)*+\""), "\"<clipped>\"");
        VARIABLE.put(Pattern.compile("run_[0-9a-f]{32}"), "<earlier-run>");
        VARIABLE.put(Pattern.compile("inc-[0-9a-f]{12}"), "<incident>");
        // A notification's outbox delivery id, new for every delivery.
        VARIABLE.put(Pattern.compile("dlv-[0-9a-f]{20}"), "<delivery>");
        VARIABLE.put(Pattern.compile("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d+)?Z"), "<time>");
        VARIABLE.put(Pattern.compile("(\\\\*\"resourceVersion\\\\*\":\\\\*\")\\d+"), "$1<rv>");
        VARIABLE.put(Pattern.compile("(\\\\*\"age\\\\*\":\\\\*\")[0-9smhd]+"), "$1<age>");
        // The API server emulator numbers uids across the whole test JVM: which tests ran before decides them.
        VARIABLE.put(Pattern.compile("00000000-0000-0000-0000-[0-9a-f]{12}"), "<uid>");
        VARIABLE.put(Pattern.compile("(\\\\*\"durationMillis\\\\*\":)\\d+"), "$1<ms>");
        // Incident memory: how long a past incident took (the suite's own, resolved as fast as the machine
        // runs) and the day it was resolved, as incident_similar quotes them.
        VARIABLE.put(Pattern.compile("(\\\\*\"timeToResolveSeconds\\\\*\":)\\d+"), "$1<s>");
        VARIABLE.put(Pattern.compile("\\b\\d{4}-\\d{2}-\\d{2}\\b"), "<date>");
    }

    private CaseNormaliser() {}

    static String normalise(String yaml) {
        JsonNode tree = YAML.readTree(yaml);
        String run = tree.path("recordedFrom").asString("");
        return YAML.writeValueAsString(walk(tree, run, ""));
    }

    private static JsonNode walk(JsonNode node, String run, String field) {
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            for (var e : node.properties()) {
                out.set(e.getKey(), walk(e.getValue(), run, e.getKey()));
            }
            return out;
        }
        if (node.isArray()) {
            List<JsonNode> items = new ArrayList<>();
            node.forEach(n -> items.add(walk(n, run, "")));
            if (UNORDERED.contains(field)) {
                items.sort(Comparator.comparing(CanonicalJson::write));
            }
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            items.forEach(out::add);
            return out;
        }
        if (node.isString()) {
            return JsonNodeFactory.instance.stringNode(text(node.asString(), run));
        }
        return node;
    }

    static String text(String s, String run) {
        String t = run.isEmpty() ? s : s.replace(run, "<run>");
        for (var v : VARIABLE.entrySet()) {
            t = v.getKey().matcher(t).replaceAll(v.getValue());
        }
        return t;
    }
}
