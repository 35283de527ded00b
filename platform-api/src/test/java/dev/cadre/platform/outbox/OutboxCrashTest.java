package dev.cadre.platform.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.memory.testing.ExternalServices;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.WebhookReceiver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@code kill -9} of an outbox process after the receiver acted on a delivery and before the process
 * could record it (the receiver holds its answer until the process is dead), then a restart of the
 * process under the same name: the delivery is made again with the same {@code Idempotency-Key} and
 * recorded as delivered, so a receiver that de-duplicates on the key acts on it exactly once and one
 * that does not gets it twice (at least once). On the embedded H2 file database and on PostgreSQL.
 */
class OutboxCrashTest {

    @TempDir
    Path work;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void tearDown() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void killedBetweenTheAttemptAndItsRecord_onH2_isDeliveredAgain_onceToAReceiverThatDeduplicates() throws Exception {
        String url = "jdbc:h2:file:" + work.resolve("cadre").toAbsolutePath()
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        crashAndResume(url, "sa", "");
    }

    @Test
    void killedBetweenTheAttemptAndItsRecord_onPostgres_isDeliveredAgain_onceToAReceiverThatDeduplicates()
            throws Exception {
        ExternalServices.Postgres schema = ExternalServices.postgres().freshSchema("outbox_crash");
        try {
            crashAndResume(schema.jdbcUrl(), schema.user(), schema.password());
        } finally {
            schema.dropSchema();
        }
    }

    private void crashAndResume(String url, String user, String password) throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            // The first request is acted on and its answer held back until the sender is gone.
            receiver.answering(WebhookReceiver.Step.slow(20_000), WebhookReceiver.Step.status(200));
            String hook = receiver.url("/hook").toString();
            Process first = runner(url, user, password, hook, "crash-key-1");
            assertThat(receiver.firstRequest.await(90, TimeUnit.SECONDS))
                    .as("the first attempt reached the receiver; runner log:\n" + log())
                    .isTrue();
            first.destroyForcibly().waitFor(); // kill -9: no record of the attempt was written

            DriverManagerDataSource db = new DriverManagerDataSource(url, user, password);
            assertThat(state(db)).as("not recorded before the kill").isEqualTo("PENDING 1");

            Process second = runner(url, user, password, hook, null);
            // Read the log, not the database: an embedded H2 file is open in one process at a time.
            Await.until("the delivery recorded after the restart", this::log, l -> l.contains("settled delivered"));
            second.destroyForcibly().waitFor();
            assertThat(state(db)).isEqualTo("DELIVERED 2");
            assertThat(receiver.requests)
                    .as("a receiver that does not de-duplicate: at least once")
                    .hasSize(2);
            assertThat(receiver.requests)
                    .extracting(WebhookReceiver.Request::idempotencyKey)
                    .containsOnly("crash-key-1");
            assertThat(receiver.processed())
                    .as("one that de-duplicates on the key: exactly once")
                    .hasSize(1);
        }
    }

    private static String state(DriverManagerDataSource db) {
        return JdbcClient.create(db)
                .sql("SELECT state, attempts FROM cadre_outbox WHERE idempotency_key = 'crash-key-1'")
                .query((rs, i) -> rs.getString(1) + " " + rs.getInt(2))
                .optional()
                .orElse("none");
    }

    private Process runner(String url, String user, String password, String hook, String key) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx128m",
                "-cp",
                System.getProperty("java.class.path"),
                OutboxRunner.class.getName(),
                url,
                user,
                password,
                hook,
                "runner"));
        if (key != null) {
            cmd.add(key);
        }
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        work.resolve("runner.log").toFile()))
                .start();
        processes.add(p);
        return p;
    }

    private String log() {
        try {
            Path log = work.resolve("runner.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
