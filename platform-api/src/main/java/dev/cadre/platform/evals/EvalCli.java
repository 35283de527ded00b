package dev.cadre.platform.evals;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The command-line entry of the evaluation harness: {@code java -jar cadre.jar eval …} starts an
 * evaluation on a running platform over its REST API, waits for it and prints the report. Exit
 * code 0 when it completed (and met {@code --min-routing-accuracy}), 1 when below the bar or
 * failed, 2 for a usage or connection error, so CI can gate a model or prompt change on it.
 */
public final class EvalCli {

    static final String USAGE = """
            usage: java -jar cadre.jar eval (--suite NAME | --file SUITE.yaml) [options]
              --url URL                    the platform (default http://127.0.0.1:8080)
              --key KEY                    an operator API key (default: $CADRE_API_KEY)
              --repeat K                   runs per case, overriding the suite's
              --min-routing-accuracy X     exit 1 when routing accuracy is below X (0..1)
              --timeout DURATION           how long to wait for the evaluation (default 30m, e.g. 90s, 2h)
            """;

    private final PrintStream out;
    private final PrintStream err;
    private final JsonMapper json = JsonMapper.builder().build();

    EvalCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Runs the command and returns its exit code; {@code args} excludes the leading {@code eval}. */
    public static int main(String[] args, Map<String, String> env) {
        return new EvalCli(System.out, System.err).run(args, env);
    }

    int run(String[] args, Map<String, String> env) {
        String url = "http://127.0.0.1:8080";
        String key = env.get("CADRE_API_KEY");
        String suite = null;
        Path file = null;
        Integer repeat = null;
        Double minAccuracy = null;
        Duration timeout = Duration.ofMinutes(30);
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
                    case "--url" -> url = v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
                    case "--key" -> key = v;
                    case "--suite" -> suite = v;
                    case "--file" -> file = Path.of(v);
                    case "--repeat" -> repeat = Integer.parseInt(v);
                    case "--min-routing-accuracy" -> minAccuracy = Double.parseDouble(v);
                    case "--timeout" -> timeout = org.springframework.boot.convert.DurationStyle.detectAndParse(v);
                    default -> {
                        return usage("unknown option " + a);
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return usage("bad value: " + e.getMessage());
        }
        if ((suite == null) == (file == null)) {
            return usage("give exactly one of --suite or --file");
        }
        if (key == null || key.isBlank()) {
            return usage("no API key: pass --key or set CADRE_API_KEY");
        }
        if (minAccuracy != null && (minAccuracy < 0 || minAccuracy > 1)) {
            return usage("--min-routing-accuracy must be from 0 to 1");
        }
        ObjectNode body = json.createObjectNode();
        try {
            if (suite != null) {
                body.put("suite", suite);
            } else {
                body.put("definition", Files.readString(file));
            }
        } catch (IOException e) {
            return usage("cannot read " + file + ": " + e.getMessage());
        }
        if (repeat != null) {
            body.put("repeat", repeat);
        }
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> started = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/api/v1/evals"))
                            .header("Authorization", "Bearer " + key)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (started.statusCode() != 202) {
                err.println("eval: the platform refused the evaluation (HTTP " + started.statusCode() + "): "
                        + problem(started.body()));
                return 2;
            }
            String id = json.readTree(started.body()).path("id").asString();
            err.println("eval: started " + id + "; waiting for its runs");
            Instant deadline = Instant.now().plus(timeout);
            JsonNode eval;
            while (true) {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url + "/api/v1/evals/" + id))
                                .header("Authorization", "Bearer " + key)
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    err.println("eval: reading " + id + " failed (HTTP " + r.statusCode() + "): " + problem(r.body()));
                    return 2;
                }
                eval = json.readTree(r.body());
                if (!"running".equals(eval.path("status").asString())) {
                    break;
                }
                if (Instant.now().isAfter(deadline)) {
                    err.println("eval: " + id + " still running after " + timeout + "; it goes on on the platform");
                    return 2;
                }
                Thread.sleep(1000);
            }
            if (!"completed".equals(eval.path("status").asString())) {
                err.println("eval: " + id + " " + eval.path("status").asString() + ": "
                        + eval.path("error").asString(""));
                return 1;
            }
            print(eval.path("report"));
            Double accuracy = number(eval.path("report").path("summary").path("routingAccuracy"));
            if (minAccuracy != null && (accuracy == null || accuracy < minAccuracy)) {
                err.println("eval: routing accuracy " + pct(accuracy) + " is below " + pct(minAccuracy));
                return 1;
            }
            return 0;
        } catch (IOException e) {
            err.println("eval: cannot reach " + url + ": " + e);
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 2;
        }
    }

    private void print(JsonNode report) {
        JsonNode s = report.path("summary");
        out.printf(
                Locale.ROOT,
                "suite %s on %s: %d cases x %d runs (%d failed)%n",
                report.path("suite").asString(),
                report.path("agent").asString(),
                s.path("cases").asInt(),
                report.path("repeat").asInt(),
                s.path("failedRuns").asInt());
        out.printf(Locale.ROOT, "  routing accuracy        %s%n", pct(number(s.path("routingAccuracy"))));
        out.printf(
                Locale.ROOT,
                "  misroute rate           %s (%d of %d delegations; %d expected workers missed)%n",
                pct(number(s.path("misrouteRate"))),
                s.path("misroutes").asLong(),
                s.path("delegations").asLong(),
                s.path("missed").asLong());
        out.printf(Locale.ROOT, "  decomposition accuracy  %s%n", pct(number(s.path("decompositionAccuracy"))));
        out.printf(Locale.ROOT, "  consistency             %s%n", pct(number(s.path("consistency"))));
        out.printf(Locale.ROOT, "  fact recall             %s%n", pct(number(s.path("factRecall"))));
        out.printf(
                Locale.ROOT,
                "  tokens per run          %.0f in / %.0f out%s%n",
                s.path("meanInputTokens").asDouble(),
                s.path("meanOutputTokens").asDouble(),
                number(s.path("meanCost")) == null
                        ? ""
                        : String.format(
                                Locale.ROOT, ", cost %.6f", s.path("meanCost").asDouble()));
        out.println("  worker                    expected routed misrouted missed misroute-rate");
        for (JsonNode w : report.path("workers")) {
            out.printf(
                    Locale.ROOT,
                    "  %-25s %8d %6d %9d %6d %s%n",
                    w.path("worker").asString() + (w.path("known").asBoolean() ? "" : " (?)"),
                    w.path("expected").asInt(),
                    w.path("routed").asInt(),
                    w.path("misrouted").asInt(),
                    w.path("missed").asInt(),
                    pct(number(w.path("misrouteRate"))));
        }
    }

    private int usage(String problem) {
        err.println("eval: " + problem);
        err.print(USAGE);
        return 2;
    }

    private String problem(String body) {
        try {
            JsonNode p = json.readTree(body);
            return p.path("detail").asString(body);
        } catch (RuntimeException notJson) {
            return body;
        }
    }

    private static @Nullable Double number(JsonNode n) {
        return n.isNumber() ? n.asDouble() : null;
    }

    private static String pct(@Nullable Double d) {
        return d == null ? "n/a" : String.format(Locale.ROOT, "%.1f%%", d * 100);
    }
}
