package dev.cadre.platform.outbox;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A minimal outbox process for {@link OutboxCrashTest}: the platform's outbox on a database, with one
 * channel, run until it is killed. Arguments: JDBC URL, user, password, the receiver's URL, the
 * lease owner, and optionally an idempotency key to enqueue a message under at start.
 */
public final class OutboxRunner {

    private OutboxRunner() {}

    public static void main(String[] args) throws Exception {
        HikariConfig config = new HikariConfig();
        // The platform's own H2 setting (commits on disk when acknowledged), as its data source gets it.
        config.setJdbcUrl(dev.cadre.platform.storage.H2Durability.durableUrl(args[0]));
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        config.setMaximumPoolSize(4);
        HikariDataSource db = new HikariDataSource(config);
        boolean postgres = args[0].startsWith("jdbc:postgresql:");
        OutboxContract.migrate(db, postgres);
        Outbox outbox = new Outbox(
                new OutboxStore(
                        JdbcClient.create(db), new TransactionTemplate(new DataSourceTransactionManager(db)), postgres),
                List.of(new OutboxChannel("hook", URI.create(args[3]), Duration.ofSeconds(30))),
                new OutboxProperties(
                        5,
                        Duration.ofMillis(100),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(5),
                        Duration.ofMinutes(5),
                        Duration.ofMillis(100),
                        null,
                        null),
                HttpClient.newHttpClient(),
                Clock.systemUTC(),
                new SecureRandom(),
                args[4],
                new SimpleMeterRegistry());
        outbox.addListener((d, s) -> System.out.println("settled " + s.state().wire() + " #" + s.attempts()));
        if (args.length > 5) {
            outbox.enqueue(new OutboundMessage("hook", args[5], "inc-crash", "alert", "{\"text\":\"crash test\"}"));
        }
        outbox.start();
        System.out.println("outbox runner started");
        Thread.sleep(Long.MAX_VALUE);
    }
}
