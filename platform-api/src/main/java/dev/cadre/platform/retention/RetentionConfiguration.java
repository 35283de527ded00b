package dev.cadre.platform.retention;

import dev.cadre.memory.SharedMemory;
import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.observability.TraceStore;
import dev.cadre.platform.runs.JdbcToolJournal;
import dev.cadre.platform.runs.LeaseOwner;
import dev.cadre.platform.runs.RunEvents;
import dev.cadre.platform.runs.RunStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Retention and partition upkeep ({@code cadre.retention.*}, docs/configuration.md). */
@Configuration(proxyBeanMethods = false)
class RetentionConfiguration {

    @Bean
    RetentionSettings retentionSettings(
            @Value("${cadre.retention.runs:P90D}") Duration runs,
            @Value("${cadre.retention.events:P14D}") Duration events,
            @Value("${cadre.retention.spans:P14D}") Duration spans,
            @Value("${cadre.retention.audit:P365D}") Duration audit,
            @Value("${cadre.retention.memory-history.versions:20}") int memoryHistoryVersions,
            @Value("${cadre.retention.memory-history.age:P7D}") Duration memoryHistoryAge,
            @Value("${cadre.retention.memory-request-ids:P7D}") Duration memoryRequestIds,
            @Value("${cadre.retention.incident-run-links:P14D}") Duration incidentRunLinks,
            @Value("${cadre.retention.batch-size:5000}") int batchSize,
            @Value("${cadre.retention.interval:PT1H}") Duration interval,
            @Value("${cadre.retention.partitions-ahead:3}") int partitionsAhead,
            @Value("${cadre.retention.incident-events:P365D}") Duration incidentEvents) {
        return new RetentionSettings(
                runs,
                events,
                spans,
                audit,
                memoryHistoryVersions,
                memoryHistoryAge,
                memoryRequestIds,
                incidentRunLinks,
                batchSize,
                interval,
                partitionsAhead,
                incidentEvents);
    }

    @Bean
    RetentionService retentionService(
            RetentionSettings settings,
            RunStore runs,
            RunEvents events,
            JdbcToolJournal journal,
            TraceStore spans,
            AuditLog audit,
            ApprovalStore approvals,
            IncidentService incidents,
            SharedMemory memory,
            JdbcClient jdbc,
            Clock clock,
            LeaseOwner owner,
            MeterRegistry registry,
            javax.sql.DataSource dataSource,
            @Value("${cadre.retention.budget:}") String budgetProperty) {
        StorageBudget budget = StorageBudget.parse(budgetProperty);
        if (budget.enabled()) {
            refuseWithoutSizes(dataSource);
        }
        // A suffix of its own: two single instances both call themselves "local".
        String leaseOwner = owner.id() + "/" + UUID.randomUUID().toString().substring(0, 8);
        RetentionMetrics metrics = new RetentionMetrics(registry);
        RetentionService service = new RetentionService(
                settings,
                runs,
                events,
                journal,
                spans,
                audit,
                approvals,
                incidents,
                memory,
                new MaintenanceLease(jdbc, clock, leaseOwner),
                clock,
                metrics,
                new Partitions(events.partitions(), spans.partitions(), settings),
                budget);
        metrics.bindGauges(service, clock);
        return service;
    }

    /**
     * A budget needs the sizes of tables on disk, which PostgreSQL tells and H2 does not: on H2 the
     * setting would be silently ignored, so the start stops instead, naming the property.
     */
    private static void refuseWithoutSizes(javax.sql.DataSource dataSource) {
        String product;
        try (java.sql.Connection c = dataSource.getConnection()) {
            product = c.getMetaData().getDatabaseProductName();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(
                    StorageBudget.PROPERTY + " is set but the database could not be asked what it is: "
                            + e.getMessage(),
                    e);
        }
        if (!product.toLowerCase(java.util.Locale.ROOT).contains("postgresql")) {
            throw new IllegalArgumentException(StorageBudget.PROPERTY + " is supported on PostgreSQL only (this"
                    + " database is " + product + ", which cannot report table sizes): unset it and bound the"
                    + " embedded database with the age limits (cadre.retention.runs, .events, .spans), or run on"
                    + " PostgreSQL");
        }
    }

    @Bean
    RetentionJob retentionJob(RetentionService service, @Value("${cadre.retention.enabled:true}") boolean enabled) {
        return new RetentionJob(service, enabled);
    }
}
