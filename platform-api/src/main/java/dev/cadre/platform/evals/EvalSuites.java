package dev.cadre.platform.evals;

import dev.cadre.agent.AgentSpec;
import dev.cadre.platform.agents.AgentCatalog;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.io.Resource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Reads evaluation suites (YAML or JSON) and checks them against the configured agents, collecting
 * every problem with the field named ({@code cases[2].expect.workers[0]: …}) instead of stopping at
 * the first. Holds the suites shipped with the platform ({@code classpath:evals/*.yaml}).
 */
public final class EvalSuites {

    static final int MAX_REPEAT = 20;
    static final int MAX_CASES = 200;
    static final Duration DEFAULT_CASE_TIMEOUT = Duration.ofMinutes(5);
    private static final Set<String> SUITE_FIELDS = Set.of("suite", "agent", "repeat", "caseTimeout", "cases");
    private static final Set<String> CASE_FIELDS = Set.of("name", "input", "context", "expect");
    private static final Set<String> EXPECT_FIELDS = Set.of("workers", "path", "facts", "tasks");

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(EvalSuites.class);

    private final AgentCatalog catalog;
    private final YAMLMapper yaml = YAMLMapper.builder().build();
    private final Map<String, EvalSuite> shipped = new LinkedHashMap<>();

    /** A suite that cannot be run, with everything that is wrong with it. */
    public static final class InvalidSuiteException extends RuntimeException {
        private final List<String> problems;

        InvalidSuiteException(List<String> problems) {
            super(String.join("; ", problems));
            this.problems = List.copyOf(problems);
        }

        public List<String> problems() {
            return problems;
        }
    }

    EvalSuites(AgentCatalog catalog, List<Resource> shippedFiles) {
        this.catalog = catalog;
        List<String> problems = new ArrayList<>();
        for (Resource file : shippedFiles) {
            String where = file.getFilename() == null ? file.getDescription() : file.getFilename();
            try (InputStream in = file.getInputStream()) {
                String text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                String agent = agentOf(text);
                if (agent != null && catalog.find(agent).isEmpty()) {
                    // A deployment with its own agents has no use for a suite of the demo team: it
                    // is left out, not a reason to refuse to start.
                    log.info("Evaluation suite {} left out: its agent '{}' is not configured", where, agent);
                    continue;
                }
                EvalSuite suite = parse(text);
                if (shipped.putIfAbsent(suite.name(), suite) != null) {
                    problems.add(where + ": suite '" + suite.name() + "' is defined twice");
                }
            } catch (InvalidSuiteException e) {
                e.problems().forEach(p -> problems.add(where + ": " + p));
            } catch (IOException e) {
                problems.add(where + ": not readable: " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("invalid evaluation suites: " + String.join("; ", problems));
        }
    }

    private @Nullable String agentOf(String text) {
        try {
            JsonNode agent = yaml.readTree(text).path("agent");
            return agent.isString() ? agent.asString() : null;
        } catch (JacksonException unreadable) {
            return null; // parse() says what is wrong
        }
    }

    /** The shipped suites whose agent is configured, by name. */
    public Map<String, EvalSuite> shipped() {
        return java.util.Collections.unmodifiableMap(shipped);
    }

    public Optional<EvalSuite> shipped(String name) {
        return Optional.ofNullable(shipped.get(name));
    }

    /** Parses and checks a suite given as YAML or JSON text. */
    public EvalSuite parse(String text) {
        JsonNode root;
        try {
            root = yaml.readTree(text);
        } catch (JacksonException e) {
            String message = e.getOriginalMessage() == null ? String.valueOf(e.getMessage()) : e.getOriginalMessage();
            throw new InvalidSuiteException(List.of(
                    "not readable YAML or JSON: " + message.lines().findFirst().orElse("")));
        }
        return parse(root);
    }

    /** Checks a suite given as a JSON/YAML tree. */
    public EvalSuite parse(@Nullable JsonNode root) {
        List<String> problems = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new InvalidSuiteException(List.of("a suite is a mapping with suite, agent and cases"));
        }
        unknownFields(root, SUITE_FIELDS, "", problems);
        String name = text(root, "suite", "", problems, true);
        if (name != null && !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
            problems.add("suite: '" + name + "' must be 1-100 letters, digits, '.', '_' or '-'");
        }
        String agent = text(root, "agent", "", problems, true);
        AgentSpec orchestrator = null;
        if (agent != null) {
            orchestrator = catalog.find(agent).orElse(null);
            if (orchestrator == null) {
                problems.add("agent: unknown agent '" + agent + "' (configured: "
                        + catalog.specs().stream().map(AgentSpec::name).toList() + ")");
            }
        }
        int repeat = 1;
        if (root.has("repeat")) {
            JsonNode r = root.get("repeat");
            if (!r.isIntegralNumber() || r.asInt() < 1 || r.asInt() > MAX_REPEAT) {
                problems.add("repeat: must be a whole number from 1 to " + MAX_REPEAT + ", got " + r);
            } else {
                repeat = r.asInt();
            }
        }
        Duration caseTimeout = DEFAULT_CASE_TIMEOUT;
        if (root.has("caseTimeout")) {
            try {
                caseTimeout =
                        DurationStyle.detectAndParse(root.get("caseTimeout").asString(""));
                if (caseTimeout.isNegative() || caseTimeout.isZero() || caseTimeout.toHours() > 24) {
                    problems.add("caseTimeout: must be positive and at most 24h");
                }
            } catch (IllegalArgumentException e) {
                problems.add("caseTimeout: not a duration (e.g. 90s, 5m): " + root.get("caseTimeout"));
            }
        }
        List<EvalSuite.Case> cases = new ArrayList<>();
        JsonNode list = root.path("cases");
        if (!list.isArray() || list.isEmpty()) {
            problems.add("cases: a non-empty list of cases is required");
        } else if (list.size() > MAX_CASES) {
            problems.add("cases: at most " + MAX_CASES + " cases, got " + list.size());
        } else {
            Set<String> names = new HashSet<>();
            for (int i = 0; i < list.size(); i++) {
                EvalSuite.Case c = parseCase(list.get(i), "cases[" + i + "]", orchestrator, problems);
                if (c != null && !names.add(c.name())) {
                    problems.add("cases[" + i + "].name: '" + c.name() + "' is used by another case");
                }
                if (c != null) {
                    cases.add(c);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSuiteException(problems);
        }
        return new EvalSuite(name, agent, repeat, caseTimeout.toSeconds(), cases);
    }

    private static EvalSuite.@Nullable Case parseCase(
            JsonNode node, String at, @Nullable AgentSpec orchestrator, List<String> problems) {
        if (!node.isObject()) {
            problems.add(at + ": a case is a mapping with name, input and expect");
            return null;
        }
        int before = problems.size();
        unknownFields(node, CASE_FIELDS, at + ".", problems);
        String name = text(node, "name", at + ".", problems, true);
        String input = text(node, "input", at + ".", problems, true);
        String context = text(node, "context", at + ".", problems, false);
        JsonNode expect = node.path("expect");
        @Nullable List<String> workers = null;
        List<List<String>> path = List.of();
        List<String> facts = List.of();
        Map<String, List<String>> tasks = Map.of();
        if (!expect.isObject()) {
            problems.add(at + ".expect: required: a mapping with workers, path, facts and/or tasks");
        } else {
            unknownFields(expect, EXPECT_FIELDS, at + ".expect.", problems);
            if (expect.has("workers")) {
                workers = names(expect.path("workers"), at + ".expect.workers", orchestrator, problems);
            }
            path = path(expect.path("path"), at + ".expect.path", orchestrator, problems);
            facts = strings(expect.path("facts"), at + ".expect.facts", problems);
            if (!expect.has("workers") && !expect.has("path") && !expect.has("facts") && !expect.has("tasks")) {
                problems.add(at + ".expect: give at least one of workers, path, facts or tasks");
            }
            if (expect.has("path") && !expect.has("workers")) {
                // The path names the workers; judging routing from it keeps the two from disagreeing.
                workers = path.stream().flatMap(List::stream).distinct().toList();
            }
            tasks = tasks(expect.path("tasks"), at + ".expect.tasks", orchestrator, workers, problems);
        }
        if (problems.size() > before) {
            return null;
        }
        return new EvalSuite.Case(name, input, context, workers, path, facts, tasks);
    }

    /** {@code tasks: {worker: [phrase, …]}}: each a worker the case expects (when it says which). */
    private static Map<String, List<String>> tasks(
            JsonNode node,
            String at,
            @Nullable AgentSpec orchestrator,
            @Nullable List<String> workers,
            List<String> problems) {
        if (node.isMissingNode()) {
            return Map.of();
        }
        if (!node.isObject() || node.isEmpty()) {
            problems.add(at + ": a mapping of worker to the phrases its task must mention,"
                    + " e.g. {cpu-inspector: [cpu, load]}");
            return Map.of();
        }
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (String worker : node.propertyNames()) {
            String workerAt = at + "." + worker;
            checkWorker(worker, workerAt, orchestrator, problems);
            if (workers != null && !workers.contains(worker)) {
                problems.add(workerAt + ": '" + worker + "' is not one of the workers this case expects " + workers);
            }
            List<String> phrases = strings(node.get(worker), workerAt, problems);
            if (phrases.isEmpty() && node.get(worker).isArray()) {
                problems.add(workerAt + ": name at least one phrase the task must mention");
            }
            out.put(worker, phrases);
        }
        return out;
    }

    private static List<String> names(
            JsonNode node, String at, @Nullable AgentSpec orchestrator, List<String> problems) {
        if (node.isMissingNode()) {
            return List.of();
        }
        List<String> out = strings(node, at, problems);
        for (int i = 0; i < out.size(); i++) {
            checkWorker(out.get(i), at + "[" + i + "]", orchestrator, problems);
        }
        return out;
    }

    private static List<List<String>> path(
            JsonNode node, String at, @Nullable AgentSpec orchestrator, List<String> problems) {
        if (node.isMissingNode()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add(at + ": a list of steps, each a worker or a list of workers called together");
            return List.of();
        }
        List<List<String>> steps = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode step = node.get(i);
            String stepAt = at + "[" + i + "]";
            List<String> workers = step.isString() ? List.of(step.asString()) : strings(step, stepAt, problems);
            if (workers.isEmpty()) {
                problems.add(stepAt + ": a step names at least one worker");
            }
            workers.forEach(w -> checkWorker(w, stepAt, orchestrator, problems));
            steps.add(workers);
        }
        return steps;
    }

    private static void checkWorker(String worker, String at, @Nullable AgentSpec orchestrator, List<String> problems) {
        if (orchestrator != null && !orchestrator.workers().contains(worker)) {
            problems.add(at + ": '" + worker + "' is not a worker of " + orchestrator.name() + " (workers: "
                    + orchestrator.workers() + ")");
        }
    }

    private static List<String> strings(JsonNode node, String at, List<String> problems) {
        if (node.isMissingNode()) {
            return List.of();
        }
        if (!node.isArray()) {
            problems.add(at + ": must be a list of strings");
            return List.of();
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (!item.isString() || item.asString().isBlank()) {
                problems.add(at + "[" + i + "]: must be a non-empty string");
            } else {
                out.add(item.asString());
            }
        }
        return out;
    }

    private static @Nullable String text(
            JsonNode node, String field, String at, List<String> problems, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                problems.add(at + field + ": required");
            }
            return null;
        }
        if (!v.isString() || v.asString().isBlank()) {
            problems.add(at + field + ": must be a non-empty string");
            return null;
        }
        if (v.asString().length() > 100_000) {
            problems.add(at + field + ": at most 100000 characters");
            return null;
        }
        return v.asString();
    }

    private static void unknownFields(JsonNode node, Set<String> known, String at, List<String> problems) {
        for (String f : node.propertyNames()) {
            if (!known.contains(f)) {
                problems.add(at + f + ": unknown field (expected one of " + new java.util.TreeSet<>(known) + ")");
            }
        }
    }
}
