package dev.cadre.platform.support;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real Keycloak — its own distribution from Maven Central, fetched and unpacked by {@code
 * test-peers/keycloak.sh} (which {@code ./test} runs) — started with {@code bin/kc.sh start-dev} on a
 * free loopback port with the test realms of {@code src/test/resources/keycloak} imported: realm
 * {@code cadre} (client {@code cadre-console}; groups payments-operators, payments-viewers,
 * storage-operators, cadre-admins, unmapped; alice in payments and storage, bob in payments, carol
 * in storage, dave an admin, erin in no mapped group) and realm {@code elsewhere} (another issuer).
 * Keycloak takes half a minute to a few minutes to start on two cores, so one instance serves every
 * test of the JVM ({@link #shared()}) and stops when the JVM exits. Each JVM runs its own copy of the
 * distribution (the jars hard-linked), since start-dev writes its build and data into it.
 */
public final class KeycloakPeer {

    public static final String VERSION = "26.5.6";
    public static final String CLIENT_ID = "cadre-console";
    public static final String CLIENT_SECRET = "cadre-console-secret";

    private static KeycloakPeer shared;

    private final Path dir;
    private final int port;
    private final Process process;
    private final Duration startTime;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final JsonMapper json = JsonMapper.builder().build();

    private KeycloakPeer(Path dir, int port, Process process, Duration startTime) {
        this.dir = dir;
        this.port = port;
        this.process = process;
        this.startTime = startTime;
    }

    /** The JVM's one Keycloak, started on first use. */
    public static synchronized KeycloakPeer shared() {
        if (shared == null) {
            shared = start();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "keycloak-stop"));
        }
        return shared;
    }

    /** The issuer of realm {@code realm}: {@code http://127.0.0.1:<port>/realms/<realm>}. */
    public String issuer(String realm) {
        return "http://127.0.0.1:" + port + "/realms/" + realm;
    }

    /** The issuer of realm {@code cadre}. */
    public String issuer() {
        return issuer("cadre");
    }

    /** How long the start took, from launch until the realm's OpenID configuration answered. */
    public Duration startTime() {
        return startTime;
    }

    /** Tokens from a password grant (the test users' passwords are {@code <name>-password}). */
    public JsonNode passwordGrant(String realm, String clientId, String clientSecret, String user) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("grant_type", "password");
        form.put("client_id", clientId);
        form.put("client_secret", clientSecret);
        form.put("username", user);
        form.put("password", user + "-password");
        form.put("scope", "openid");
        String body = form.entrySet().stream()
                .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(issuer(realm) + "/protocol/openid-connect/token"))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("Keycloak refused the password grant of " + user + " on " + clientId
                        + ": " + response.statusCode() + " " + response.body());
            }
            return json.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** An access token of realm {@code cadre}'s console client for {@code user}. */
    public String accessToken(String user) {
        return passwordGrant("cadre", CLIENT_ID, CLIENT_SECRET, user)
                .get("access_token")
                .asString();
    }

    private static KeycloakPeer start() {
        Path home = Path.of(System.getenv()
                .getOrDefault(
                        "CADRE_TEST_KEYCLOAK_HOME",
                        System.getProperty("user.home") + "/.cache/cadre-test/keycloak/keycloak-" + VERSION));
        if (!Files.isExecutable(home.resolve("bin/kc.sh"))) {
            fail("Keycloak " + VERSION + " is missing at " + home + ": run test-peers/keycloak.sh (./test runs it),"
                    + " which fetches org.keycloak:keycloak-quarkus-dist:" + VERSION + " from Maven Central and"
                    + " unpacks it there (or set CADRE_TEST_KEYCLOAK_HOME)");
        }
        try {
            Path dir = Files.createTempDirectory("cadre-keycloak-");
            copy(home, dir);
            Path imports = Files.createDirectories(dir.resolve("data/import"));
            for (String realm : new String[] {"cadre-realm.json", "elsewhere-realm.json"}) {
                try (InputStream in = KeycloakPeer.class.getResourceAsStream("/keycloak/" + realm)) {
                    Files.copy(in, imports.resolve(realm));
                }
            }
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            ProcessBuilder builder = new ProcessBuilder(
                            dir.resolve("bin/kc.sh").toString(),
                            "start-dev",
                            "--http-host=127.0.0.1",
                            "--http-port=" + port,
                            "--db=dev-mem",
                            "--import-realm")
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("keycloak.log").toFile());
            builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
            builder.environment().put("KC_BOOTSTRAP_ADMIN_USERNAME", "admin");
            builder.environment().put("KC_BOOTSTRAP_ADMIN_PASSWORD", "admin-password");
            long began = System.nanoTime();
            Process process = builder.start();
            var peer = new KeycloakPeer(dir, port, process, Duration.ZERO);
            peer.awaitReady();
            Duration took = Duration.ofNanos(System.nanoTime() - began);
            System.out.println(
                    "Keycloak " + VERSION + " answered on 127.0.0.1:" + port + " after " + took.toSeconds() + " s");
            return new KeycloakPeer(dir, port, process, took);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Keycloak from " + home, e);
        }
    }

    /**
     * Waits for the realms' OpenID configuration, however long the start takes on a busy machine,
     * as long as the process lives (a dead one fails at once, with its log's tail).
     */
    private void awaitReady() {
        URI discovery = URI.create(issuer("elsewhere") + "/.well-known/openid-configuration");
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                fail("Keycloak exited with " + process.exitValue() + " before it answered; its log ends:\n"
                        + logTail());
            }
            try {
                HttpResponse<Void> r = http.send(
                        HttpRequest.newBuilder(discovery)
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            try {
                // Polling a server that is starting: nothing to be told by, so ask every half second.
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        stop();
        fail("Keycloak did not answer within 10 minutes; its log ends:\n" + logTail());
    }

    private String logTail() {
        try (Stream<String> lines = Files.lines(dir.resolve("keycloak.log"))) {
            var all = lines.filter(l -> !l.startsWith("WARNING:")).toList();
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private void stop() {
        // kc.sh forwards TERM to its Java process; any child left is ended too.
        var children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
        delete(dir);
    }

    /** Copies the distribution; its jars (most of its 175 MB, never written) are hard-linked when possible. */
    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (source.startsWith(from.resolve("lib/lib"))) {
                    try {
                        Files.createLink(target, source);
                    } catch (IOException | UnsupportedOperationException notLinkable) {
                        Files.copy(source, target);
                    }
                } else {
                    Files.copy(source, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory; the OS cleans it up eventually
        }
    }
}
