package dev.cadre.platform.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cadre.memory.Writer;
import dev.cadre.platform.agents.ToolGuard;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.recall.RecallService;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.RealSshd;
import dev.cadre.platform.support.ScriptedPrometheus;
import dev.cadre.platform.tools.FakeHost;
import dev.cadre.platform.tools.OpsToolsProperties;
import dev.cadre.platform.tools.kubernetes.KubernetesMock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The platform the shipped suite's scenarios run on (docs/replay.md, "The shipped suite"): the teams a
 * subclass names ({@link #platform}), a Prometheus whose hosts' numbers the scenario sets ({@link
 * ScriptedPrometheus}, so a recording is the same every time), a real sshd standing in for {@code web-1}
 * where the host runbook runs ({@link RealSshd}), host_metrics reading a fake platform host ({@link
 * FakeHost}), the Kubernetes tools against fabric8's mock API server in CRUD mode ({@link SuiteCluster}), a
 * real runbook directory and a local notify webhook. Runs start over REST or the Alertmanager intake with
 * the admin key; a second operator decides every approval (separation of duties on).
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.runbooks.install-demo=false",
            "cadre.incidents.escalate-after=3",
            "cadre.tools.kubernetes.context=mock",
            // The emulator plays the deployment controller (controlRollouts): a rollback verifies quickly.
            "cadre.tools.kubernetes.verify-timeout=PT10S",
            "cadre.tools.kubernetes.verify-poll-interval=PT0.2S",
            // A loaded build machine is no slow API server: the recordings must not depend on its load.
            "cadre.tools.kubernetes.request-timeout=PT1M",
            // host_verify re-queries one second after the repair: the scripted Prometheus has no scrapes to wait for.
            "cadre.tools.host-inspect.settle=1s"
        })
@Import(SuiteHarness.Host.class)
// One instance per class: its second operator's key is created once (a key's name is never reused).
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SuiteHarness {

    // Shared by every context of the suite's test classes, for the whole test JVM (not closed after one
    // class: a cached context of another class still points at it).
    static final KubernetesMock MOCK = new KubernetesMock();
    static final Path KUBECONFIG;
    static final Path RUNBOOKS;
    static final HttpServer WEBHOOK;
    /** The file clear-tmp-cache.sh touches in {@link #RUNBOOKS} when it runs. */
    static final String RUNBOOK_MARKER = "clear-tmp-cache.ran";
    /** The file the host runbook (host-cpu-relief.sh, on "web-1" over SSH) touches in {@link #RUNBOOKS} when it runs. */
    static final String HOST_RUNBOOK_MARKER = "host-cpu-relief.ran";
    /** The hosts' Prometheus: web-1 and db-2 as each scenario sets them. */
    static final ScriptedPrometheus PROMETHEUS = ScriptedPrometheus.start();
    /** web-1's SSH. */
    static final RealSshd SSHD;
    /** The paths of every request the notify/escalation webhook received. */
    static final List<String> HOOKED = new java.util.concurrent.CopyOnWriteArrayList<>();

    static {
        try {
            KUBECONFIG = MOCK.writeKubeconfig(Files.createTempDirectory("cadre-suite-kubeconfig"));
            MOCK.controlRollouts();
            RUNBOOKS = Files.createTempDirectory("cadre-suite-runbooks");
            Path script = RUNBOOKS.resolve("clear-tmp-cache.sh");
            // The marker file says the runbook really ran (a replay must never leave it); it prints nothing, so
            // the recorded output is unchanged.
            Files.writeString(
                    script,
                    "#!/bin/sh\ntouch '" + RUNBOOKS.resolve(RUNBOOK_MARKER) + "'\n"
                            + "echo \"cleared (minutes=$RUNBOOK_OLDER_THAN_MINUTES)\"\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
            Files.writeString(
                    RUNBOOKS.resolve("clear-tmp-cache.yaml"),
                    "description: clear the platform's scratch cache\ntimeout: 20s\nparameters:\n"
                            + "  older_than_minutes: {type: integer, minimum: 1, maximum: 10080, default: 60}\n"
                            + "  dry_run: {type: boolean, default: true}\n");
            // Runs on "web-1" over SSH: says it ran (the marker), and makes the scripted Prometheus read web-1's
            // numbers after the repair from now on. Its output names nothing that changes between recordings.
            Path relief = RUNBOOKS.resolve("host-cpu-relief.sh");
            Files.writeString(
                    relief,
                    "#!/bin/sh\ntouch '" + RUNBOOKS.resolve(HOST_RUNBOOK_MARKER) + "' '" + PROMETHEUS.repairMarker()
                            + "'\necho \"reniced +10 the top $RUNBOOK_COUNT CPU user(s) on $CADRE_HOST\"\n");
            Files.setPosixFilePermissions(relief, PosixFilePermissions.fromString("rwx------"));
            Files.writeString(
                    RUNBOOKS.resolve("host-cpu-relief.yaml"),
                    "description: relieve CPU pressure on the alert's host\ntarget: alert-host\nhosts: [\"web-*\"]\n"
                            + "verifies: [cpu]\ntimeout: 30s\nrequiresIncident: true\nparameters:\n"
                            + "  count: {type: integer, minimum: 1, maximum: 5, default: 1}\n");
            SSHD = RealSshd.start("web-1");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                SSHD.close();
                PROMETHEUS.close();
            }));
            WEBHOOK = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            WEBHOOK.createContext("/", exchange -> {
                HOOKED.add(exchange.getRequestURI().getPath());
                exchange.getRequestBody().readAllBytes();
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
    static void environment(DynamicPropertyRegistry registry) {
        registry.add("cadre.tools.kubernetes.kubeconfig", KUBECONFIG::toString);
        registry.add("cadre.runbooks.dir", RUNBOOKS::toString);
        registry.add("cadre.tools.prometheus.url", () -> PROMETHEUS.url().toString());
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

    /** host_metrics reads a host the scenario sets, not the build machine. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Host {
        @Bean
        FakeHost fakeHost() {
            return new FakeHost(FakeHost.quiet(ShippedSuite.HOST));
        }

        @Bean
        ToolGuard fakeHostMetrics(FakeHost host, OpsToolsProperties config, JsonMapper json) {
            return new HostGuard(host.hostMetrics(config.hostMetrics(), json));
        }
    }

    /** Puts the fake host's host_metrics in place of the real one, before the replay seam wraps it. */
    record HostGuard(dev.cadre.agent.tool.Tool fake) implements ToolGuard, Ordered {
        @Override
        public dev.cadre.agent.tool.Tool wrap(dev.cadre.agent.tool.Tool tool) {
            return tool.name().equals(fake.name()) ? fake : tool;
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    FakeHost host;

    @Autowired
    IncidentService incidents;

    @Autowired
    RecallService recall;

    @Autowired
    CaseFile files;

    private final SuiteCluster cluster = new SuiteCluster(MOCK);
    private Driver driver;

    /** The H2 database of a context: each subclass is its own platform (its teams, keys, incidents). */
    static void platform(DynamicPropertyRegistry registry, String name, String agents) {
        registry.add(
                "spring.datasource.url",
                () -> "jdbc:h2:mem:" + name
                        + ";DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH");
        registry.add("cadre.agents.locations", () -> agents);
    }

    Api api() {
        return new Api(port);
    }

    /**
     * Runs {@code s} from a fresh world (incidents resolved, cluster emptied, host quiet) through its
     * approvals to the end and answers the case exported from it with the scenario's expectations.
     */
    String record(ShippedSuite.Scenario s) {
        Api api = api();
        if (driver == null) {
            var key = api.post(
                    "/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", "suite-approver", "role", "operator")));
            assertThat(key.status()).as(key.body()).isEqualTo(201);
            driver = new Driver(api, key.json().get("secret").asString(), incidents, recall);
        }
        reset();
        s.arrange().accept(new ShippedSuite.World(host, cluster, PROMETHEUS));
        String runId = s.start().apply(driver);
        JsonNode run = driver.finish(runId, s.decisions());
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        var exported = api.post("/api/v1/runs/" + runId + "/case?name=" + s.name(), Api.ADMIN_KEY, s.expect());
        assertThat(exported.status()).as(exported.body()).isEqualTo(200);
        return exported.body();
    }

    /** The committed case of that name, read and validated. */
    IncidentCase committed(String name) {
        Path file = ShippedSuite.casesDirectory().resolve(name + ".yaml");
        try {
            return files.read("cases/" + name + ".yaml", Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fresh world set up as the named scenario sets it (incidents resolved, cluster and host reset). */
    void arrange(String scenario) {
        reset();
        ShippedSuite.scenarios().stream()
                .filter(s -> s.name().equals(scenario))
                .findFirst()
                .orElseThrow()
                .arrange()
                .accept(new ShippedSuite.World(host, cluster, PROMETHEUS));
    }

    private void reset() {
        for (Incident i : incidents.list(false, 1000)) {
            incidents.update(i.id(), i.version(), Incident.RESOLVED, null, "suite reset", Writer.apiClient("test"));
        }
        cluster.clear();
        host.set(FakeHost.quiet(ShippedSuite.HOST));
        PROMETHEUS.set(
                ScriptedPrometheus.Host.quiet(ShippedSuite.WEB_1), ScriptedPrometheus.Host.quiet(ShippedSuite.DB_2));
        try {
            Files.deleteIfExists(RUNBOOKS.resolve(HOST_RUNBOOK_MARKER));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // Incident memory as of now, not as far as its change stream got: what incident_similar finds
        // must not depend on timing.
        recall.rebuild();
    }

    /** Runs and decisions over REST: the admin key submits, a second operator decides. */
    private record Driver(Api api, String approver, IncidentService incidents, RecallService recall)
            implements ShippedSuite.Driver {

        @Override
        public void remember(ShippedSuite.Past past) {
            String id = incidents
                    .open(
                            new IncidentService.OpenRequest(
                                    past.fingerprint(),
                                    past.title(),
                                    "critical",
                                    "alertmanager",
                                    past.labels(),
                                    past.summary(),
                                    null,
                                    past.target()),
                            Writer.apiClient("alertmanager"),
                            null)
                    .incident()
                    .id();
            var resolved = api.post(
                    "/api/v1/incidents/" + id + "/resolve",
                    approver,
                    Api.json(Map.of("rootCause", past.rootCause(), "fix", past.fix())));
            assertThat(resolved.status()).as(resolved.body()).isEqualTo(200);
            recall.rebuild();
        }

        @Override
        public String triage(String input) {
            var r = api.post(
                    "/api/v1/runs", Api.ADMIN_KEY, Api.json(Map.of("agent", "ops-orchestrator", "input", input)));
            assertThat(r.status()).as(r.body()).isEqualTo(202);
            return r.json().get("id").asString();
        }

        @Override
        public String alert(String body) {
            var r = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, body);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode accepted = r.json().get("alerts").get(0);
            assertThat(accepted.path("runId").isString()).as(r.body()).isTrue();
            return accepted.get("runId").asString();
        }

        @Override
        public JsonNode finish(String runId, Map<String, ShippedSuite.Decision> overrides) {
            List<String> decided = new ArrayList<>();
            JsonNode run = Await.until(
                    "run " + runId + " to wait or end",
                    () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY).json(),
                    j -> j.get("status").asString().matches("input-required|completed|failed|canceled|rejected"));
            while (run.get("status").asString().equals("input-required")) {
                for (JsonNode approval : api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                        .json()
                        .get("items")) {
                    String id = approval.get("id").asString();
                    if (decided.contains(id)) {
                        continue;
                    }
                    decided.add(id);
                    ShippedSuite.Decision d = overrides.getOrDefault(
                            approval.get("tool").asString(),
                            ShippedSuite.decisionFor(approval.get("tool").asString()));
                    String body = Api.json(Map.of("comment", d.comment()));
                    var r = d.approve()
                            ? api.approve(id, approver, body)
                            : api.post("/api/v1/approvals/" + id + "/reject", approver, body);
                    assertThat(r.status()).as(r.body()).isEqualTo(200);
                }
                run = Await.until(
                        "run " + runId + " to go on after " + decided,
                        () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY).json(),
                        j -> {
                            String status = j.get("status").asString();
                            if (status.matches("completed|failed|canceled|rejected")) {
                                return true;
                            }
                            return status.equals("input-required")
                                    && api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                                            .json()
                                            .get("items")
                                            .valueStream()
                                            .anyMatch(a -> !decided.contains(
                                                    a.get("id").asString()));
                        });
            }
            return run;
        }
    }
}
