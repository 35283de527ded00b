package dev.cadre.platform.replay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code java -jar cadre.jar replay --suite cases/ --baseline TEAM.yaml --candidate TEAM.yaml}: replays
 * a suite of incident cases against a baseline and a candidate team inside this process (the platform
 * started on a private in-memory database, web on a random loopback port, nothing reachable from
 * outside), prints per case and for the suite what got better and worse, and exits 0 when nothing
 * regressed beyond the thresholds, 1 on a regression (any forbidden action proposed by the candidate is
 * one), 2 on bad input (naming the file and field). A CI gate for a team repository.
 */
public final class ReplayCli {

    static final String USAGE = """
            usage: java -jar platform-api/target/platform-api-*.jar replay --suite DIR|CASE.yaml [--suite ...]
                     --candidate TEAM [options]
              (build the jar first: ./mvnw -B -q -pl platform-api -am package -DskipTests)
              --baseline TEAM              the team to compare with (default: builtin)
              --candidate TEAM             the changed team; TEAM is a team YAML, a directory of them,
                                             several of them separated by commas (one team), or
                                             builtin: the platform's built-in teams (host and Kubernetes)
              --threshold NAME=VALUE       how much worse a case may get before it is a regression:
                                             recall=0 red-herrings=0 missed-actions=0 deviations=0
                                             (absolute), turns=0.5 tokens=0.5 cost=0.5 (relative increase)
              --label TEXT                 the candidate's version label (default: its file name)
              --timeout DURATION           how long each team's replay may take (default 30m)
              --port PORT                  the loopback port of the platform started for the replay
                                             (default: a free one)
            exit code: 0 no regression, 1 regression, 2 bad input
            """;

    /** The team value naming the platform's built-in teams (classpath {@code agents/*.yaml}). */
    static final String BUILTIN = "builtin";

    /** Default thresholds: nothing found may get worse; turns, tokens and cost may grow by half. */
    static final Map<String, Double> THRESHOLDS = Map.of(
            "recall", 0.0,
            "red-herrings", 0.0,
            "missed-actions", 0.0,
            "deviations", 0.0,
            "turns", 0.5,
            "tokens", 0.5,
            "cost", 0.5);

    private final PrintStream out;
    private final PrintStream err;
    private final Class<?> application;

    ReplayCli(PrintStream out, PrintStream err, Class<?> application) {
        this.out = out;
        this.err = err;
        this.application = application;
    }

    /** Runs the command and returns its exit code; {@code args} excludes the leading {@code replay}. */
    public static int main(String[] args, Class<?> application) {
        return new ReplayCli(System.out, System.err, application).run(args);
    }

    int run(String[] args) {
        List<Path> suites = new ArrayList<>();
        String baseline = CandidateTeams.RUNNING;
        String candidate = null;
        String label = null;
        Duration timeout = Duration.ofMinutes(30);
        int port = 0;
        Map<String, Double> thresholds = new LinkedHashMap<>(THRESHOLDS);
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--help") || a.equals("-h")) {
                    out.print(USAGE);
                    return 0;
                }
                if (i + 1 >= args.length) {
                    return usage("missing value after " + a);
                }
                String v = args[++i];
                switch (a) {
                    case "--suite" -> suites.add(Path.of(v));
                    case "--baseline" -> baseline = team(v);
                    case "--candidate" -> candidate = team(v);
                    case "--label" -> label = v;
                    case "--timeout" -> timeout = org.springframework.boot.convert.DurationStyle.detectAndParse(v);
                    case "--port" -> {
                        port = Integer.parseInt(v);
                        if (port < 0 || port > 65535) {
                            return usage("--port " + v + ": a port number, 1 to 65535 (0: a free one)");
                        }
                    }
                    case "--threshold" -> {
                        int eq = v.indexOf('=');
                        String name = eq < 0 ? v : v.substring(0, eq);
                        if (eq < 0 || !THRESHOLDS.containsKey(name)) {
                            return usage("--threshold " + v + ": expected NAME=VALUE with NAME one of "
                                    + THRESHOLDS.keySet().stream().sorted().toList());
                        }
                        double d = Double.parseDouble(v.substring(eq + 1));
                        if (!(d >= 0) || Double.isInfinite(d)) {
                            return usage("--threshold " + v + ": the value must be a number of 0 or more");
                        }
                        thresholds.put(name, d);
                    }
                    default -> {
                        return usage("unknown option " + a);
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return usage("bad value: " + e.getMessage());
        }
        if (suites.isEmpty()) {
            return usage("give at least one --suite");
        }
        if (candidate == null) {
            return usage("give --candidate");
        }
        List<ReplayService.CaseInput> cases = new ArrayList<>();
        for (Path suite : suites) {
            try {
                cases.addAll(read(suite));
            } catch (IOException e) {
                return bad(suite + ": cannot be read: " + e.getMessage());
            }
        }
        if (cases.isEmpty()) {
            return bad(suites + ": no case files (*.yaml)");
        }
        for (String team : List.of(baseline, candidate)) {
            if (team.equals(CandidateTeams.RUNNING)) {
                continue;
            }
            for (String part : CandidateTeams.parts(team)) {
                if (!Files.exists(Path.of(part))) {
                    return bad(part + ": no such team file or directory");
                }
            }
        }
        // The format first, without a platform: a wrong field fails fast, naming its file.
        List<String> errors = new ArrayList<>();
        CaseFile format = new CaseFile(name -> true);
        for (ReplayService.CaseInput c : cases) {
            try {
                format.read(c.source(), c.yaml());
            } catch (CaseFormatException e) {
                errors.addAll(e.errors());
            }
        }
        if (!errors.isEmpty()) {
            errors.forEach(x -> err.println("replay: " + x));
            return 2;
        }
        String suiteName = suiteName(suites);
        String candidateLabel = label != null
                ? label
                : candidate.equals(CandidateTeams.RUNNING)
                        ? BUILTIN
                        : CandidateTeams.parts(candidate).stream()
                                .map(p -> String.valueOf(Path.of(p).getFileName()))
                                .collect(java.util.stream.Collectors.joining("+"));
        try (ConfigurableApplicationContext context = start(port)) {
            ReplayService service = context.getBean(ReplayService.class);
            ReplayService.Replay base = replay(service, suiteName, "baseline", cases, baseline, timeout);
            ReplayService.Replay cand = replay(service, suiteName, candidateLabel, cases, candidate, timeout);
            if (!base.status().equals("completed") || !cand.status().equals("completed")) {
                err.println("replay: did not complete within " + timeout + ": baseline " + base.status()
                        + ", candidate " + cand.status());
                return 2;
            }
            List<String> regressions = new ReplayComparison(thresholds).compare(base, cand, out);
            if (regressions.isEmpty()) {
                out.println("no regression beyond the thresholds " + thresholds);
                return 0;
            }
            out.println("REGRESSION: " + regressions.size() + " finding(s)");
            regressions.forEach(r -> out.println("  " + r));
            return 1;
        } catch (ReplayInputException e) {
            e.errors().forEach(x -> err.println("replay: " + x));
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        }
    }

    private ReplayService.Replay replay(
            ReplayService service,
            String suite,
            String label,
            List<ReplayService.CaseInput> cases,
            String team,
            Duration timeout)
            throws InterruptedException {
        try {
            ReplayService.Replay r =
                    service.start(suite, label, cases, team, dev.cadre.platform.security.Actor.platform("replay-cli"));
            err.println("replay: " + team + ": " + cases.size() + " cases (" + r.id() + ")");
            return service.await(r.id(), timeout);
        } catch (ReplayInputException e) {
            if (!e.field().equals("team")) {
                throw e;
            }
            // Name the team file whose field is wrong, e.g. "my-team.yaml: agent 'x': field 'tools': ...".
            throw new ReplayInputException(
                    team,
                    e.errors().stream().map(x -> x.replaceFirst("^team: ", "")).toList());
        }
    }

    /**
     * The platform in this process: a private in-memory database, web on a loopback port ({@code --port},
     * default a free one), a
     * bootstrap key nobody sees (so none is printed), only errors logged. Given as command-line
     * arguments, which win over application.yaml and the environment (default properties would not).
     */
    private ConfigurableApplicationContext start(int port) {
        List<String> args = List.of(
                "--spring.datasource.url=jdbc:h2:mem:cadre-replay-" + UUID.randomUUID()
                        + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH"
                        // A suite's runs end together and add to the same statistics rows; H2's default
                        // lock wait (1s) failed a run's ending on a loaded machine (the run then never
                        // ended and the replay waited out --timeout).
                        + ";LOCK_TIMEOUT=60000",
                "--spring.datasource.username=sa",
                "--spring.datasource.password=",
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--spring.main.banner-mode=off",
                "--logging.level.root=ERROR",
                "--cadre.security.bootstrap-api-key="
                        + UUID.randomUUID().toString().replace("-", "")
                        + UUID.randomUUID().toString().replace("-", ""),
                "--cadre.redis.url=",
                // Tools answer from the recordings: no configured MCP server is started (a stdio one
                // is a process of its own) or reached.
                "--cadre.tools.mcp.enabled=false",
                "--cadre.runbooks.install-demo=false");
        return new SpringApplicationBuilder(application).logStartupInfo(false).run(args.toArray(String[]::new));
    }

    /** The cases of a file, or of a directory's {@code *.yaml} in name order, each named by its path. */
    static List<ReplayService.CaseInput> read(Path suite) throws IOException {
        List<Path> files;
        if (Files.isDirectory(suite)) {
            try (Stream<Path> s = Files.list(suite)) {
                files = s.filter(p -> {
                            String n = p.getFileName().toString();
                            return n.endsWith(".yaml") || n.endsWith(".yml");
                        })
                        .sorted()
                        .toList();
            }
        } else {
            files = List.of(suite);
        }
        List<ReplayService.CaseInput> out = new ArrayList<>();
        for (Path f : files) {
            out.add(new ReplayService.CaseInput(f.toString(), Files.readString(f)));
        }
        return out;
    }

    private static String suiteName(List<Path> suites) {
        Path first = suites.getFirst().toAbsolutePath().normalize();
        Path name = Files.isDirectory(first)
                ? first.getFileName()
                : first.getParent().getFileName();
        return name == null ? "suite" : name.toString();
    }

    /** The built-in teams are named {@code builtin} (or {@code running}, as over REST). */
    private static String team(String value) {
        return value.equals(BUILTIN) ? CandidateTeams.RUNNING : value;
    }

    private int usage(String problem) {
        err.println("replay: " + problem);
        err.print(USAGE);
        return 2;
    }

    private int bad(String problem) {
        err.println("replay: " + problem);
        return 2;
    }
}
