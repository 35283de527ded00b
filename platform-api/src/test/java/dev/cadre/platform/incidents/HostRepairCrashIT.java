package dev.cadre.platform.incidents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformProcess;
import dev.cadre.platform.support.RealAlertmanager;
import dev.cadre.platform.support.RealHosts;
import dev.cadre.platform.support.RealSshd;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The host team end to end on the packaged jar, with every peer real: Debian's Alertmanager fired with
 * {@code amtool} delivers a {@code HostHighCpu} alert about {@code web-1:9100} into the intake; the team
 * investigates web-1 through a real Prometheus scraping a real node_exporter (a runaway process holds
 * web-1's core and memory); a second operator approves the alert to the ops channel (a run an integration
 * started asks before anything leaves) and then {@code host-cpu-relief} on web-1; the platform is
 * killed with {@code kill -9} after the approval and before the runbook ran; after the restart the
 * runbook runs on web-1 over SSH (a real sshd) exactly once, the re-query in Prometheus shows the
 * repair, and the incident is resolved with the outcome.
 *
 * <p>"Before the runbook ran" is made certain, not hoped for: the test holds a lock on the tool journal
 * (PostgreSQL) while it approves, waits until the resumed run blocks on writing its journal entry — the
 * last step before the runbook runs — and kills the process there. Nothing ran yet, so nothing may be
 * skipped or run twice after the restart.
 */
class HostRepairCrashIT {

    @TempDir
    Path work;

    private final ExternalServices.Postgres pg = ExternalServices.postgres().freshSchema("host_repair_it");
    private PlatformProcess platform;
    private RealHosts hosts;
    private RealSshd sshd;
    private RealAlertmanager alertmanager;

    @AfterEach
    void tearDown() throws Exception {
        if (platform != null) {
            platform.destroy();
        }
        if (alertmanager != null) {
            alertmanager.close();
        }
        if (sshd != null) {
            sshd.close();
        }
        if (hosts != null) {
            hosts.close();
        }
        pg.dropSchema();
    }

    @Test
    void anAlertAboutWeb1_approved_thenKill9_runsTheRunbookOnWeb1ExactlyOnceAfterTheRestart_andResolves()
            throws Exception {
        hosts = RealHosts.start(false);
        sshd = RealSshd.start("web-1");
        Path runbooks = Files.createDirectories(work.resolve("runbooks"));
        Path executions = work.resolve("web-1-executions.log");
        writeRunbook(runbooks, executions, hosts.busyPidFile());

        // A runaway on web-1's core holding 4 GiB: stopping it shows in memory even when the shared machine
        // keeps the core busy.
        double usedBefore = memoryUsed();
        Process runaway = hosts.startRunaway(4);
        Await.until("web-1 to hold the runaway's memory", this::memoryUsed, used -> used > usedBefore + 0.1);

        int port = PlatformProcess.freePort();
        platform = PlatformProcess.start(
                "host-repair",
                port,
                Path.of("target", "host-repair-it"),
                List.of("-Xmx512m"),
                work,
                List.of(
                        "--spring.datasource.url=" + pg.jdbcUrl(),
                        "--spring.datasource.username=" + pg.user(),
                        "--spring.datasource.password=" + pg.password(),
                        "--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
                        "--cadre.runbooks.dir=" + runbooks,
                        "--cadre.runbooks.install-demo=false",
                        "--cadre.tools.prometheus.url=" + hosts.url(),
                        "--cadre.tools.host-inspect.settle=6s",
                        // Whatever else runs on the shared machine, web-1's one busy core is "high CPU".
                        "--cadre.tools.host-metrics.cpu-warn=0",
                        "--cadre.tools.host-metrics.cpu-critical=0",
                        "--cadre.runbooks.ssh.user=" + System.getProperty("user.name"),
                        "--cadre.runbooks.ssh.key=" + sshd.userKey(),
                        "--cadre.runbooks.ssh.known-hosts=" + sshd.knownHosts(),
                        "--cadre.runbooks.ssh.addresses.web-1=127.0.0.1:" + sshd.port()));
        try {
            platform.awaitHealthy(Duration.ofMinutes(4));
            Api api = platform.api();
            String intakeKey = key(api, "alertmanager", "intake");
            String operatorKey = key(api, "second-operator", "operator");
            alertmanager = RealAlertmanager.start(platform.base() + "/api/v1/integrations/alertmanager", intakeKey);

            alertmanager.amtoolAdd(
                    List.of("alertname=HostHighCpu", "instance=web-1:9100", "severity=critical"),
                    List.of("summary=CPU above 90% on web-1 for 5 minutes"),
                    false);
            String runId = Await.until(
                            "Alertmanager's alert to start the host team (Alertmanager log: see "
                                    + "RealAlertmanager.log())",
                            () -> api.get("/api/v1/runs?limit=5&agent=ops-orchestrator", Api.ADMIN_KEY)
                                    .json()
                                    .get("items"),
                            items -> items != null && items.size() == 1)
                    .get(0)
                    .get("id")
                    .asString();

            // The run came from an integration key: what it would send out waits for a person first.
            JsonNode alert = api.pendingApprovalOf(runId);
            assertThat(alert.get("tool").asString()).isEqualTo("notify");
            assertThat(alert.get("arguments").toString()).contains("web-1");
            var sent = api.approve(alert.get("id").asString(), operatorKey, "{\"comment\":\"send it\"}");
            assertThat(sent.status()).as(sent.body()).isEqualTo(200);

            // Investigated on web-1; the approval shows the host, the runbook and its arguments.
            JsonNode approval = Await.until(
                    "the repair's approval after the alert's",
                    () -> api.pendingApprovalOf(runId),
                    a -> !a.get("id").asString().equals(alert.get("id").asString()));
            assertThat(approval.get("tool").asString()).isEqualTo("runbook_execute");
            assertThat(approval.get("arguments").get("runbook").asString()).isEqualTo("host-cpu-relief");
            assertThat(approval.get("arguments").get("host").asString()).isEqualTo("web-1");
            assertThat(executions)
                    .as("nothing ran on web-1 before the approval")
                    .doesNotExist();

            try (Connection db = pg.connect()) {
                db.setAutoCommit(false);
                try (Statement st = db.createStatement()) {
                    // Reads go on; the journal entry the resumed run writes before running waits for this lock.
                    st.execute("LOCK TABLE cadre_tool_journal IN SHARE MODE");
                }
                var approved =
                        api.approve(approval.get("id").asString(), operatorKey, "{\"comment\":\"relieve web-1\"}");
                assertThat(approved.status()).as(approved.body()).isEqualTo(200);
                Await.until("the approved run to reach its journal entry", () -> waitingOnJournal(db), n -> n > 0);
                platform.kill();
                // The dead process's statement still waits in its PostgreSQL session and would commit once the
                // lock is gone: end that session, as the database does when it notices its client died, so the
                // journal entry never reached the database — the crash came before the runbook was started.
                try (Statement st = db.createStatement()) {
                    st.execute("SELECT pg_terminate_backend(l.pid) FROM pg_locks l JOIN pg_class c ON l.relation ="
                            + " c.oid WHERE c.relname = 'cadre_tool_journal' AND NOT l.granted");
                }
                Await.until("the dead platform's journal write to be gone", () -> waitingOnJournal(db), n -> n == 0);
                db.rollback();
            }
            assertThat(executions).as("killed before the runbook ran").doesNotExist();
            assertThat(runaway.isAlive()).isTrue();

            platform.restart();
            platform.awaitHealthy(Duration.ofMinutes(4));

            JsonNode end = Await.until(
                    "run " + runId + " to end after the restart",
                    () -> api.get("/api/v1/runs/" + runId, Api.ADMIN_KEY).json(),
                    j -> j.get("status").asString().matches("completed|failed|canceled|rejected"));
            assertThat(end.get("status").asString()).as(end.toString()).isEqualTo("completed");
            assertThat(api.get("/api/v1/approvals?status=pending&runId=" + runId, Api.ADMIN_KEY)
                            .json()
                            .get("items"))
                    .as("the decision taken before the crash holds; nobody is asked again")
                    .isEmpty();

            // Ran exactly once, on web-1 (the sshd), for this run; the runaway it stopped is gone.
            assertThat(executions)
                    .as("the runbook ran on web-1 after the restart; the run: " + end)
                    .exists();
            List<String> ran = Files.readAllLines(executions);
            assertThat(ran).hasSize(1);
            assertThat(ran.getFirst()).startsWith("web-1 inc-").contains(" " + runId + " --count=1");
            String incidentId = ran.getFirst().split(" ")[1];
            Await.until("the runaway on web-1 to be stopped", runaway::isAlive, alive -> !alive);

            // Verified in Prometheus and resolved with the outcome.
            JsonNode incident = api.get("/api/v1/incidents/" + incidentId, Api.ADMIN_KEY)
                    .json()
                    .get("incident");
            assertThat(incident.get("status").asString())
                    .as(incident.toString())
                    .isEqualTo("resolved");
            assertThat(incident.get("remediations"))
                    .as("one remediation: one run of the runbook")
                    .hasSize(1);
            JsonNode remediation = incident.get("remediations").get(0);
            assertThat(remediation.get("verdict").asString())
                    .as(remediation.toString())
                    .isEqualTo("succeeded");
            assertThat(remediation.get("summary").asString()).startsWith("better on web-1 after host-cpu-relief: ");
        } finally {
            runaway.destroy();
        }
    }

    private static String key(Api api, String name, String role) {
        var key = api.post("/api/v1/keys", Api.ADMIN_KEY, Api.json(Map.of("name", name, "role", role)));
        assertThat(key.status()).as(key.body()).isEqualTo(201);
        return key.json().get("secret").asString();
    }

    /** Sessions of other connections waiting for a lock on the tool journal. */
    private static int waitingOnJournal(Connection db) {
        try (Statement st = db.createStatement();
                ResultSet r = st.executeQuery("SELECT count(*) FROM pg_locks l JOIN pg_class c ON l.relation = c.oid"
                        + " WHERE c.relname = 'cadre_tool_journal' AND NOT l.granted")) {
            r.next();
            return r.getInt(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private double memoryUsed() {
        JsonNode r = hosts.query("1 - node_memory_MemAvailable_bytes{instance=\"web-1:9100\"}"
                + " / node_memory_MemTotal_bytes{instance=\"web-1:9100\"}");
        return r == null || r.path("data").path("result").isEmpty()
                ? 0
                : Double.parseDouble(r.path("data")
                        .path("result")
                        .get(0)
                        .path("value")
                        .get(1)
                        .asString());
    }

    /** host-cpu-relief for the test: runs on "web-1" over SSH, logs its run there and stops the runaway. */
    private static void writeRunbook(Path runbooks, Path executions, Path busyPid) throws Exception {
        Path script = runbooks.resolve("host-cpu-relief.sh");
        Files.writeString(
                script,
                "#!/bin/sh\necho \"$CADRE_HOST $CADRE_INCIDENT_ID $CADRE_RUN_ID $*\" >> '" + executions + "'\n"
                        + "pid=$(cat '" + busyPid + "' 2>/dev/null || true)\n"
                        + "if [ -n \"$pid\" ]; then kill \"$pid\" && echo \"stopped pid $pid\"; fi\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(
                runbooks.resolve("host-cpu-relief.yaml"),
                "description: test remediation on web-1 that stops its runaway process\ntarget: alert-host\n"
                        + "hosts: [\"web-*\"]\nverifies: [cpu, memory]\ntimeout: 60s\nrequiresIncident: true\n"
                        + "parameters:\n  count: {type: integer, minimum: 1, maximum: 5, default: 1}\n");
    }
}
