package dev.cadre.platform.outbox;

import dev.cadre.platform.runs.LeaseOwner;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Wires the outbox: its store on the platform's database, the channels other features declare as
 * {@link OutboxChannel} beans, and the worker, started once the application context is complete (so
 * every listener is registered before the first outcome) and stopped before the database closes.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(OutboxProperties.class)
class OutboxConfiguration {

    @Bean
    OutboxStore outboxStore(DataSource dataSource, JdbcClient jdbc, PlatformTransactionManager transactions) {
        return new OutboxStore(jdbc, new TransactionTemplate(transactions), isPostgres(dataSource));
    }

    @Bean(destroyMethod = "close")
    Outbox outbox(
            OutboxStore store,
            ObjectProvider<OutboxChannel> channels,
            OutboxProperties settings,
            Clock clock,
            ObjectProvider<LeaseOwner> owner,
            MeterRegistry registry) {
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                // A redirect is an answer (refused), never followed: the receiver is a configured address.
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        return new Outbox(
                store,
                channels.orderedStream().toList(),
                settings,
                http,
                clock,
                new SecureRandom(),
                owner.getIfAvailable(() -> new LeaseOwner("local")).id(),
                registry);
    }

    @Bean
    SmartLifecycle outboxWorker(Outbox outbox) {
        return new SmartLifecycle() {
            private volatile boolean running;

            @Override
            public void start() {
                outbox.start();
                running = true;
            }

            @Override
            public void stop() {
                try {
                    outbox.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running = false;
            }

            @Override
            public boolean isRunning() {
                return running;
            }
        };
    }

    private static boolean isPostgres(DataSource dataSource) {
        try (java.sql.Connection c = dataSource.getConnection()) {
            return c.getMetaData()
                    .getDatabaseProductName()
                    .toLowerCase(Locale.ROOT)
                    .contains("postgresql");
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("the outbox could not ask the database what it is: " + e.getMessage(), e);
        }
    }
}
