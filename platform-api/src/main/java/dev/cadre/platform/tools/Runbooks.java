package dev.cadre.platform.tools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The runbook directory: an executable script {@code NAME} or {@code NAME.sh} is a runbook only
 * when a sidecar {@code NAME.yaml} declares it (description, parameters with types and limits,
 * timeout, whether it needs an incident). Nothing outside the directory, and nothing undeclared,
 * can ever be run.
 */
public final class Runbooks {

    private static final Logger log = LoggerFactory.getLogger(Runbooks.class);
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
    private static final Pattern PARAM = Pattern.compile("[a-z][a-z0-9_]{0,31}");

    private final Path dir;
    private final Duration defaultTimeout;
    private final YAMLMapper yaml = YAMLMapper.builder().build();

    public Runbooks(Path dir, Duration defaultTimeout) {
        this.dir = dir.toAbsolutePath().normalize();
        this.defaultTimeout = defaultTimeout;
    }

    /** One declared parameter. */
    public record Parameter(
            String name,
            String type,
            boolean required,
            @Nullable JsonNode spec) {}

    /** Where a runbook runs: on the platform's machine, or on the incident's host over SSH. */
    public enum Target {
        LOCAL,
        ALERT_HOST
    }

    /**
     * A declared runbook. {@code target} {@code alert-host} runs it over SSH on the host named in the call,
     * only when that host matches one of {@code hosts} (globs: {@code web-*}); {@code verifies} names the
     * signals (cpu, memory, disk) a repair by it should improve, which host_verify compares afterwards.
     */
    public record Runbook(
            String name,
            Path script,
            String description,
            List<Parameter> parameters,
            Duration timeout,
            boolean requiresIncident,
            Target target,
            List<String> hosts,
            List<String> verifies) {

        /** A local runbook (how every runbook ran before SSH runbooks). */
        public Runbook(
                String name,
                Path script,
                String description,
                List<Parameter> parameters,
                Duration timeout,
                boolean requiresIncident) {
            this(name, script, description, parameters, timeout, requiresIncident, Target.LOCAL, List.of(), List.of());
        }

        /** Whether {@code host} is on this runbook's allow-list (exact names or globs with {@code *} and {@code ?}). */
        public boolean allows(String host) {
            for (String glob : hosts) {
                StringBuilder re = new StringBuilder();
                for (char c : glob.toCharArray()) {
                    re.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
                }
                if (host.matches(re.toString())) {
                    return true;
                }
            }
            return false;
        }
    }

    public Path dir() {
        return dir;
    }

    /** Copies the demo runbooks shipped in {@code classpath:runbooks/} into a directory that does not exist yet. */
    static void installDemo(Path dir, ResourcePatternResolver resolver) {
        if (Files.exists(dir)) {
            return;
        }
        try {
            Files.createDirectories(dir);
            for (Resource r : resolver.getResources("classpath:runbooks/*")) {
                String name = r.getFilename();
                if (name == null) {
                    continue;
                }
                Path target = dir.resolve(name);
                try (InputStream in = r.getInputStream()) {
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
                if (!name.endsWith(".yaml")) {
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-x---"));
                }
            }
            log.info("Installed the demo runbooks into {}", dir.toAbsolutePath());
        } catch (IOException | UnsupportedOperationException e) {
            log.warn("Could not install the demo runbooks into {}: {}", dir, e.toString());
        }
    }

    /** The runbooks declared now (the directory is read on every call, so edits need no restart). */
    public List<Runbook> list() {
        List<Runbook> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.sorted().toList()) {
                String f = p.getFileName().toString();
                if (f.endsWith(".yaml")) {
                    find(f.substring(0, f.length() - 5)).ifPresent(out::add);
                }
            }
        } catch (IOException e) {
            log.warn("Cannot list runbooks in {}: {}", dir, e.toString());
        }
        return out;
    }

    /** The runbook of that name, if it is declared and its script is an executable file inside the directory. */
    public Optional<Runbook> find(String name) {
        if (!NAME.matcher(name).matches()) {
            return Optional.empty();
        }
        Path sidecar = dir.resolve(name + ".yaml");
        Path script = Files.isRegularFile(dir.resolve(name)) ? dir.resolve(name) : dir.resolve(name + ".sh");
        try {
            if (!Files.isRegularFile(sidecar) || !Files.isRegularFile(script)) {
                return Optional.empty();
            }
            Path real = script.toRealPath();
            if (!real.startsWith(dir.toRealPath()) || !Files.isExecutable(real)) {
                log.warn("Runbook {} ignored: its script is not an executable file inside {}", name, dir);
                return Optional.empty();
            }
            JsonNode spec = yaml.readTree(sidecar.toFile());
            List<Parameter> params = new ArrayList<>();
            for (Map.Entry<String, JsonNode> e : spec.path("parameters").properties()) {
                if (!PARAM.matcher(e.getKey()).matches()) {
                    log.warn(
                            "Runbook {}: parameter name '{}' is not [a-z][a-z0-9_]*; runbook ignored",
                            name,
                            e.getKey());
                    return Optional.empty();
                }
                String type = e.getValue().path("type").asString("string");
                params.add(new Parameter(
                        e.getKey(), type, e.getValue().path("required").asBoolean(false), e.getValue()));
            }
            Duration timeout = spec.has("timeout")
                    ? DurationStyle.detectAndParse(spec.get("timeout").asString())
                    : defaultTimeout;
            String where = spec.path("target").asString("local");
            Target target;
            switch (where) {
                case "local" -> target = Target.LOCAL;
                case "alert-host" -> target = Target.ALERT_HOST;
                default -> {
                    log.warn("Runbook {}: target '{}' is neither local nor alert-host; runbook ignored", name, where);
                    return Optional.empty();
                }
            }
            List<String> hosts = new ArrayList<>();
            spec.path("hosts").forEach(h -> hosts.add(h.asString()));
            List<String> verifies = new ArrayList<>();
            spec.path("verifies").forEach(v -> verifies.add(v.asString()));
            return Optional.of(new Runbook(
                    name,
                    real,
                    spec.path("description").asString(""),
                    List.copyOf(params),
                    timeout,
                    spec.path("requiresIncident").asBoolean(true),
                    target,
                    List.copyOf(hosts),
                    List.copyOf(verifies)));
        } catch (IOException | RuntimeException e) {
            log.warn("Runbook {} ignored: {}", name, e.toString());
            return Optional.empty();
        }
    }

    /**
     * Validates arguments against the declared parameters and renders them as {@code name -> text};
     * returns the problems instead when there are any. Unknown names, wrong types, values outside
     * enum/minimum/maximum/maxLength/pattern, and control characters are refused.
     */
    public static Validated validate(Runbook runbook, JsonNode arguments) {
        List<String> problems = new ArrayList<>();
        Map<String, String> values = new LinkedHashMap<>();
        for (String given : arguments.propertyNames()) {
            if (runbook.parameters().stream().noneMatch(p -> p.name().equals(given))) {
                problems.add("unknown parameter '" + given + "' (declared: "
                        + runbook.parameters().stream().map(Parameter::name).toList() + ")");
            }
        }
        for (Parameter p : runbook.parameters()) {
            JsonNode v = arguments.get(p.name());
            JsonNode spec = p.spec();
            if (v == null || v.isNull()) {
                if (spec != null && spec.has("default")) {
                    values.put(p.name(), spec.get("default").asString());
                } else if (p.required()) {
                    problems.add("missing required parameter '" + p.name() + "'");
                }
                continue;
            }
            String text;
            switch (p.type()) {
                case "integer" -> {
                    if (!v.isIntegralNumber()) {
                        problems.add(p.name() + ": expected an integer");
                        continue;
                    }
                    text = Long.toString(v.asLong());
                }
                case "number" -> {
                    if (!v.isNumber()) {
                        problems.add(p.name() + ": expected a number");
                        continue;
                    }
                    text = v.asString();
                }
                case "boolean" -> {
                    if (!v.isBoolean()) {
                        problems.add(p.name() + ": expected true or false");
                        continue;
                    }
                    text = Boolean.toString(v.asBoolean());
                }
                default -> {
                    if (!v.isString()) {
                        problems.add(p.name() + ": expected a string");
                        continue;
                    }
                    text = v.asString();
                }
            }
            if (text.chars().anyMatch(Character::isISOControl)) {
                problems.add(p.name() + ": control characters are not allowed");
                continue;
            }
            if (spec != null) {
                if (spec.path("enum").isArray()) {
                    boolean found = false;
                    for (JsonNode e : spec.get("enum")) {
                        found |= e.asString().equals(text);
                    }
                    if (!found) {
                        problems.add(p.name() + ": must be one of " + spec.get("enum"));
                    }
                }
                if (spec.has("minimum")
                        && v.isNumber()
                        && v.doubleValue() < spec.get("minimum").asDouble()) {
                    problems.add(p.name() + ": must be >= " + spec.get("minimum"));
                }
                if (spec.has("maximum")
                        && v.isNumber()
                        && v.doubleValue() > spec.get("maximum").asDouble()) {
                    problems.add(p.name() + ": must be <= " + spec.get("maximum"));
                }
                int maxLength = spec.path("maxLength").asInt(256);
                if (text.length() > maxLength) {
                    problems.add(p.name() + ": at most " + maxLength + " characters");
                }
                if (spec.has("pattern")
                        && !Pattern.compile(spec.get("pattern").asString())
                                .matcher(text)
                                .matches()) {
                    problems.add(
                            p.name() + ": must match " + spec.get("pattern").asString());
                }
            }
            values.put(p.name(), text);
        }
        return new Validated(values, problems);
    }

    /** Rendered arguments, or the problems. */
    public record Validated(Map<String, String> values, List<String> problems) {}
}
