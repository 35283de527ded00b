package dev.cadre.platform.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.MovableClock;
import dev.cadre.platform.support.WebhookReceiver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox against a real local HTTP receiver, on each backend ({@link OutboxH2Test}, {@link
 * OutboxPostgresTest}): transient failures retried until delivered once, refusals not retried,
 * {@code Retry-After} honoured to the second, attempts capped, one key stored once, and two
 * instances sharing the work without attempting a delivery twice. The clock is the test's, so the
 * backoff is asserted exactly and nothing waits for it.
 */
abstract class OutboxContract {

    static final Instant START = Instant.parse("2026-12-07T03:00:00Z");

    abstract DataSource dataSource();

    abstract boolean postgres();

    static void migrate(DataSource db, boolean postgres) {
        Flyway.configure()
                .dataSource(db)
                .locations("classpath:db/migration", "classpath:db/vendor/" + (postgres ? "postgresql" : "h2"))
                .load()
                .migrate();
    }

    WebhookReceiver receiver;
    MovableClock clock;
    final List<String> settled = new CopyOnWriteArrayList<>();
    SimpleMeterRegistry registry;
    final List<Outbox> outboxes = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        JdbcClient.create(dataSource()).sql("DELETE FROM cadre_outbox").update();
        receiver = new WebhookReceiver();
        clock = new MovableClock(START);
        registry = new SimpleMeterRegistry();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (Outbox o : outboxes) {
            o.close();
        }
        receiver.close();
    }

    Outbox outbox(String owner, OutboxProperties settings) {
        OutboxStore store = new OutboxStore(
                JdbcClient.create(dataSource()),
                new TransactionTemplate(new DataSourceTransactionManager(dataSource())),
                postgres());
        Outbox o = new Outbox(
                store,
                List.of(new OutboxChannel("hook", receiver.url("/hook"), Duration.ofMillis(700))),
                settings,
                HttpClient.newHttpClient(),
                clock,
                new Random(7),
                owner,
                registry);
        o.addListener((d, s) -> settled.add(s.state().wire() + " " + s.status() + " #" + s.attempts()));
        outboxes.add(o);
        return o;
    }

    Outbox outbox() {
        return outbox("a", settings(8));
    }

    static OutboxProperties settings(int maxAttempts) {
        return new OutboxProperties(
                maxAttempts,
                Duration.ofSeconds(2),
                Duration.ofSeconds(60),
                Duration.ofMinutes(5),
                null,
                null,
                null,
                null);
    }

    static OutboundMessage message(String key) {
        return new OutboundMessage("hook", key, "inc-1", "alert", "{\"text\":\"disk full on db-1\"}");
    }

    /** Moves the clock past any backoff (at most max-backoff) and attempts what is due. */
    int later(Outbox o) throws InterruptedException {
        clock.advance(Duration.ofSeconds(61));
        return o.runDue();
    }

    double counter(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    @Test
    void error500_thenATimeout_then200_isDeliveredOnce_afterRetries_withOneKey() throws Exception {
        receiver.answering(
                WebhookReceiver.Step.status(500), WebhookReceiver.Step.slow(3000), WebhookReceiver.Step.status(200));
        Outbox o = outbox();
        OutboxDelivery d = o.enqueue(message("alert:inc-1:1")).delivery();

        assertThat(o.runDue()).isEqualTo(1);
        OutboxDelivery afterFirst = o.find(d.id()).orElseThrow();
        assertThat(afterFirst.state()).isEqualTo(DeliveryState.PENDING);
        assertThat(afterFirst.lastStatus()).isEqualTo(500);
        // Backoff after the first attempt: 2 s with equal jitter, so 1..2 s after the attempt.
        assertThat(Duration.between(START, afterFirst.nextAttemptAt()))
                .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(o.runDue()).as("not due before its backoff").isZero();

        assertThat(later(o)).isEqualTo(1);
        OutboxDelivery afterTimeout = o.find(d.id()).orElseThrow();
        assertThat(afterTimeout.state()).isEqualTo(DeliveryState.PENDING);
        assertThat(afterTimeout.lastStatus()).isZero();
        assertThat(afterTimeout.lastError()).startsWith("no answer within");

        assertThat(later(o)).isEqualTo(1);
        OutboxDelivery done = o.find(d.id()).orElseThrow();
        assertThat(done.state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(done.attempts()).isEqualTo(3);
        assertThat(done.deliveredAt()).isEqualTo(clock.instant());
        assertThat(later(o)).as("nothing left to do").isZero();

        assertThat(receiver.requests).hasSize(3);
        assertThat(receiver.requests)
                .extracting(WebhookReceiver.Request::idempotencyKey)
                .containsOnly("alert:inc-1:1");
        assertThat(receiver.processed()).hasSize(1);
        assertThat(settled).containsExactly("pending 500 #1", "pending 0 #2", "delivered 200 #3");
        assertThat(counter("cadre.outbox.attempts", "channel", "hook", "result", "retry"))
                .isEqualTo(2);
        assertThat(counter("cadre.outbox.attempts", "channel", "hook", "result", "delivered"))
                .isEqualTo(1);
        assertThat(counter("cadre.outbox.settled", "channel", "hook", "state", "delivered"))
                .isEqualTo(1);
        assertThat(registry.get("cadre.outbox.deliveries")
                        .tags("state", "delivered")
                        .gauge()
                        .value())
                .isEqualTo(1);
        assertThat(registry.get("cadre.outbox.deliveries")
                        .tags("state", "pending")
                        .gauge()
                        .value())
                .isZero();
    }

    @Test
    void error400_failsAtOnce_andIsNeverRetried() throws Exception {
        receiver.answering(WebhookReceiver.Step.status(400));
        Outbox o = outbox();
        OutboxDelivery d = o.enqueue(message("alert:inc-1:2")).delivery();
        assertThat(o.runDue()).isEqualTo(1);
        assertThat(later(o)).isZero();
        assertThat(later(o)).isZero();
        OutboxDelivery failed = o.find(d.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(DeliveryState.FAILED);
        assertThat(failed.attempts()).isEqualTo(1);
        assertThat(failed.lastStatus()).isEqualTo(400);
        assertThat(failed.lastError()).isEqualTo("refused: HTTP 400: answer 400");
        assertThat(receiver.requests).hasSize(1);
        assertThat(settled).containsExactly("failed 400 #1");
        assertThat(counter("cadre.outbox.settled", "channel", "hook", "state", "failed"))
                .isEqualTo(1);
    }

    @Test
    void error429_withRetryAfter_isTriedAgainExactlyThen_andA408IsRetriedToo() throws Exception {
        receiver.answering(
                WebhookReceiver.Step.retryAfter(429, "120"),
                WebhookReceiver.Step.status(408),
                WebhookReceiver.Step.status(200));
        Outbox o = outbox();
        OutboxDelivery d = o.enqueue(message("alert:inc-1:3")).delivery();
        assertThat(o.runDue()).isEqualTo(1);
        // Retry-After (120 s) wins over the backoff (2 s): no jitter, no earlier attempt.
        assertThat(o.find(d.id()).orElseThrow().nextAttemptAt()).isEqualTo(START.plusSeconds(120));
        clock.advance(Duration.ofSeconds(119));
        assertThat(o.runDue()).isZero();
        clock.advance(Duration.ofSeconds(1));
        assertThat(o.runDue()).isEqualTo(1);
        assertThat(later(o)).isEqualTo(1);
        assertThat(o.find(d.id()).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
        assertThat(settled).containsExactly("pending 429 #1", "pending 408 #2", "delivered 200 #3");
    }

    @Test
    void aReceiverThatKeepsFailing_failsTheDelivery_afterMaxAttempts() throws Exception {
        receiver.answering(WebhookReceiver.Step.status(503));
        Outbox o = outbox("a", settings(3));
        OutboxDelivery d = o.enqueue(message("alert:inc-1:4")).delivery();
        assertThat(o.runDue()).isEqualTo(1);
        assertThat(later(o)).isEqualTo(1);
        assertThat(later(o)).isEqualTo(1);
        assertThat(later(o)).isZero();
        OutboxDelivery failed = o.find(d.id()).orElseThrow();
        assertThat(failed.state()).isEqualTo(DeliveryState.FAILED);
        assertThat(failed.lastError()).isEqualTo("failed after 3 attempts: HTTP 503: answer 503");
        assertThat(settled).containsExactly("pending 503 #1", "pending 503 #2", "failed 503 #3");
    }

    @Test
    void aConnectionError_isRetried() throws Exception {
        Outbox o = outbox();
        OutboxDelivery d = o.enqueue(message("alert:inc-1:5")).delivery();
        receiver.close(); // nothing listens any more
        assertThat(o.runDue()).isEqualTo(1);
        OutboxDelivery pending = o.find(d.id()).orElseThrow();
        assertThat(pending.state()).isEqualTo(DeliveryState.PENDING);
        assertThat(pending.lastError()).startsWith("connection failed");
    }

    @Test
    void aStoppedAndRestartedWorker_stillDelivers() throws Exception {
        // Spring stops and starts the lifecycle of a paused test context (and of any restarted one);
        // the outbox must deliver after a restart, not fail every round on its shut-down threads.
        receiver.answering(WebhookReceiver.Step.status(200));
        Outbox o = outbox();
        o.start();
        o.stop();
        o.start();
        o.stop();
        OutboxDelivery d = o.enqueue(message("alert:inc-1:restart")).delivery();
        assertThat(o.runDue()).isEqualTo(1);
        assertThat(o.find(d.id()).orElseThrow().state()).isEqualTo(DeliveryState.DELIVERED);
    }

    @Test
    void oneKeyEnqueuedTwice_isOneDelivery() {
        Outbox o = outbox();
        Outbox.Enqueued first = o.enqueue(message("escalation:inc-1"));
        Outbox.Enqueued second = o.enqueue(message("escalation:inc-1"));
        assertThat(first.created()).isTrue();
        assertThat(second.created()).isFalse();
        assertThat(second.delivery().id()).isEqualTo(first.delivery().id());
    }

    @Test
    void twoInstancesClaimingAtOnce_attemptEveryDeliveryOnce() throws Exception {
        receiver.answering(WebhookReceiver.Step.status(200));
        Outbox a = outbox("a", settings(8));
        Outbox b = outbox("b", settings(8));
        for (int i = 0; i < 40; i++) {
            a.enqueue(message("alert:many:" + i));
        }
        var pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> rounds = new ArrayList<>();
            for (Outbox o : List.of(a, b, a, b)) {
                rounds.add(pool.submit((Callable<Integer>) () -> {
                    int n = 0;
                    for (int r = 0; r < 10; r++) {
                        n += o.runDue();
                    }
                    return n;
                }));
            }
            int attempted = 0;
            for (Future<Integer> f : rounds) {
                attempted += f.get();
            }
            assertThat(attempted).isEqualTo(40);
        } finally {
            pool.shutdownNow();
        }
        assertThat(receiver.requests).hasSize(40);
        assertThat(new HashSet<>(receiver.requests.stream()
                        .map(WebhookReceiver.Request::idempotencyKey)
                        .toList()))
                .hasSize(40);
    }

    @Test
    void anUnconfiguredChannel_isRefusedAtEnqueue() {
        Outbox o = outbox();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> o.enqueue(new OutboundMessage("nowhere", "k", null, null, "{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox channel nowhere is not configured");
    }
}
