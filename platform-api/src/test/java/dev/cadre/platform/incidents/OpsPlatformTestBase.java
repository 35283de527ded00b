package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cadre.memory.Writer;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.RealHosts;
import dev.cadre.platform.support.RealSshd;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The ops-team context shared by the team, Alertmanager and 3 a.m. tests: the shipped team only, a
 * CPU threshold of 0 so the real host_metrics and host_inspect always see "high CPU" (seed 003's
 * night), a real runbook in a temp directory that counts its executions, a local webhook that counts
 * notifications, a real Prometheus scraping two real node_exporters as the hosts {@code web-1} and
 * {@code db-2} ({@link RealHosts}), and a real sshd standing in for {@code web-1}'s SSH ({@link RealSshd})
 * where the test runbook {@code host-cpu-relief} runs: it stops the busy process a test started on
 * web-1's core and counts its runs in {@link #HOST_EXECUTIONS}.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-ops-test;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.agents.locations=classpath:agents/*.yaml",
            "cadre.tools.host-metrics.cpu-warn=0",
            "cadre.tools.host-metrics.cpu-critical=0",
            "cadre.tools.host-metrics.memory-warn=1.01",
            "cadre.tools.host-metrics.memory-critical=1.01",
            "cadre.tools.host-metrics.disk-warn=1.01",
            "cadre.tools.host-metrics.disk-critical=1.01",
            "cadre.tools.host-metrics.sample-millis=50",
            "cadre.runbooks.install-demo=false",
            "cadre.incidents.escalate-after=3",
            // One admin key submits and decides here (SecurityAttackTest covers the refusal).
            "cadre.approvals.separation-of-duties=false"
        })
public abstract class OpsPlatformTestBase {

    static final Path RUNBOOKS;
    static final Path EXECUTIONS;
    protected static final Path HOST_EXECUTIONS;
    protected static final RealHosts HOSTS;
    protected static final RealSshd SSHD;
    static final HttpServer WEBHOOK;
    /** Every webhook delivery: "hook <body>" or "escalate <body>". */
    protected static final List<String> DELIVERIES = new CopyOnWriteArrayList<>();

    static {
        try {
            RUNBOOKS = Files.createTempDirectory("cadre-runbooks");
            EXECUTIONS = RUNBOOKS.resolveSibling(RUNBOOKS.getFileName() + "-executions.log");
            Path script = RUNBOOKS.resolve("clear-tmp-cache.sh");
            Files.writeString(
                    script,
                    "#!/bin/sh\necho \"$CADRE_INCIDENT_ID $CADRE_RUN_ID $*\" >> '" + EXECUTIONS + "'\n"
                            + "echo \"cleared (minutes=$RUNBOOK_OLDER_THAN_MINUTES)\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
            Files.writeString(
                    RUNBOOKS.resolve("clear-tmp-cache.yaml"),
                    "description: test remediation that counts its runs\ntimeout: 20s\nparameters:\n"
                            + "  older_than_minutes: {type: integer, minimum: 1, maximum: 10080, default: 60}\n"
                            + "  dry_run: {type: boolean, default: true}\n");
            HOSTS = RealHosts.start(false);
            SSHD = RealSshd.start("web-1");
            // The peers outlive no test JVM: the context is shared and never closed by the tests.
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                SSHD.close();
                HOSTS.close();
            }));
            HOST_EXECUTIONS = RUNBOOKS.resolveSibling(RUNBOOKS.getFileName() + "-host-executions.log");
            Path relief = RUNBOOKS.resolve("host-cpu-relief.sh");
            // Runs on "web-1" over SSH: counts its run there and stops the runaway process a test started there.
            Files.writeString(
                    relief,
                    "#!/bin/sh\necho \"$CADRE_HOST $CADRE_INCIDENT_ID $CADRE_RUN_ID $*\" >> '" + HOST_EXECUTIONS + "'\n"
                            + "pid=$(cat '" + HOSTS.busyPidFile() + "' 2>/dev/null || true)\n"
                            + "if [ -n \"$pid\" ]; then kill \"$pid\" && echo \"stopped pid $pid\"; fi\n");
            Files.setPosixFilePermissions(relief, PosixFilePermissions.fromString("rwx------"));
            Files.writeString(
                    RUNBOOKS.resolve("host-cpu-relief.yaml"),
                    "description: test remediation on web-1 that stops its busy process\ntarget: alert-host\n"
                            + "hosts: [\"web-*\"]\nverifies: [cpu, memory]\ntimeout: 60s\nparameters:\n"
                            + "  count: {type: integer, minimum: 1, maximum: 5, default: 1}\n");
            WEBHOOK = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            WEBHOOK.createContext("/", exchange -> {
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                DELIVERIES.add(exchange.getRequestURI().getPath().substring(1) + " " + body);
                exchange.sendResponseHeaders(204, -1);
                exchange.close();
            });
            WEBHOOK.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void opsProperties(DynamicPropertyRegistry registry) {
        registry.add("cadre.runbooks.dir", RUNBOOKS::toString);
        registry.add("cadre.tools.prometheus.url", () -> HOSTS.url().toString());
        registry.add("cadre.tools.host-inspect.settle", () -> "6s");
        registry.add("cadre.runbooks.ssh.user", () -> System.getProperty("user.name"));
        registry.add("cadre.runbooks.ssh.key", () -> SSHD.userKey().toString());
        registry.add("cadre.runbooks.ssh.known-hosts", () -> SSHD.knownHosts().toString());
        registry.add("cadre.runbooks.ssh.addresses.web-1", () -> "127.0.0.1:" + SSHD.port());
        registry.add(
                "cadre.tools.notify.webhook-url",
                () -> "http://127.0.0.1:" + WEBHOOK.getAddress().getPort() + "/hook");
        registry.add(
                "cadre.tools.notify.escalation-url",
                () -> "http://127.0.0.1:" + WEBHOOK.getAddress().getPort() + "/escalate");
    }

    @LocalServerPort
    protected int port;

    @Autowired
    protected IncidentService incidents;

    protected Api api;

    @BeforeEach
    protected void freshNight() throws IOException {
        api = new Api(port);
        for (Incident i : incidents.list(false, 1000)) {
            incidents.update(i.id(), i.version(), Incident.RESOLVED, null, "test reset", Writer.apiClient("test"));
        }
        DELIVERIES.clear();
        Files.deleteIfExists(EXECUTIONS);
        Files.deleteIfExists(HOST_EXECUTIONS);
    }

    /** Forgets the runbook executions and webhook deliveries so far (a test's own setup made them). */
    protected static void forgetSideEffects() throws IOException {
        DELIVERIES.clear();
        Files.deleteIfExists(EXECUTIONS);
    }

    protected static long executions() throws IOException {
        return Files.exists(EXECUTIONS) ? Files.readAllLines(EXECUTIONS).size() : 0;
    }

    protected static long deliveries(String kind) {
        return DELIVERIES.stream().filter(d -> d.startsWith(kind + " ")).count();
    }

    protected String submit(String input) {
        var r = api.post("/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "ops-orchestrator", "input", input)));
        assertThat(r.status()).as(r.body()).isEqualTo(202);
        return r.json().get("id").asString();
    }

    protected JsonNode run(String id) {
        return api.get("/api/v1/runs/" + id, Api.ADMIN_KEY).json();
    }

    protected JsonNode awaitStatus(String id, String regex) {
        return Await.until(
                "run " + id + " to reach " + regex,
                () -> run(id),
                j -> j.get("status").asString().matches(regex));
    }

    /**
     * Waits for what deciding {@code decided} approvals of a waiting run causes: the run ends, or it
     * waits again on an approval not among them. A run still {@code input-required} right after the
     * decision is the state before the decision took effect, so that status alone never satisfies it.
     */
    protected JsonNode awaitPastDecisions(String id, java.util.Collection<String> decided) {
        return api.awaitPastDecisions(id, decided);
    }

    protected List<JsonNode> pendingApprovals(String runId) {
        return api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                .json()
                .get("items")
                .valueStream()
                .toList();
    }
}
