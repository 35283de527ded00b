package dev.cadre.platform.storage;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Durability of the platform's database whatever URL the operator gives: an H2 file database gets
 * {@code WRITE_DELAY=0} ({@link H2Durability}) before its pool opens the first connection, so the
 * runs, approvals, tool journal and shared memory it holds are on disk when a request is answered,
 * and on H2's interrupt-safe {@code async:} file system ({@link H2InterruptSafety}); health asks the
 * database itself ({@link DatabaseHealth}).
 */
@Configuration(proxyBeanMethods = false)
class StorageConfiguration {

    // Static: a post-processor must exist before the beans it processes, the data source among them.
    @Bean
    static BeanPostProcessor durableH2Commits() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String beanName) {
                // After initialization: spring.datasource.hikari.* is bound by then, and Hikari's pool
                // starts only on the first getConnection(), so the URL can still change.
                if (bean instanceof HikariDataSource hikari) {
                    hikari.setJdbcUrl(H2InterruptSafety.interruptSafeUrl(H2Durability.durableUrl(hikari.getJdbcUrl())));
                }
                return bean;
            }
        };
    }

    /** The readiness group's view of the database: DOWN when a statement fails (docs/reliability.md). */
    @Bean
    HealthIndicator databaseHealthIndicator(DataSource dataSource) {
        return DatabaseHealth.of(dataSource);
    }

    /** The liveness group's: DOWN when the embedded database can no longer be used (a restart reopens it). */
    @Bean
    HealthIndicator embeddedDatabaseHealthIndicator(DataSource dataSource) {
        return DatabaseHealth.embedded(
                dataSource, dataSource instanceof HikariDataSource hikari ? hikari.getJdbcUrl() : null);
    }
}
