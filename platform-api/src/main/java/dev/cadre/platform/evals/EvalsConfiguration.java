package dev.cadre.platform.evals;

import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.runs.RunService;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;
import org.springframework.jdbc.core.simple.JdbcClient;
import tools.jackson.databind.json.JsonMapper;

/** Wires routing evaluations: the shipped suites ({@code cadre.evals.locations}), the store and the runner. */
@Configuration(proxyBeanMethods = false)
class EvalsConfiguration {

    @Bean
    EvalSuites evalSuites(
            AgentCatalog catalog,
            ResourcePatternResolver resolver,
            @Value("${cadre.evals.locations:classpath*:evals/*.yaml}") List<String> locations) {
        List<Resource> files = new ArrayList<>();
        for (String location : locations) {
            try {
                files.addAll(List.of(resolver.getResources(location)));
            } catch (IOException e) {
                throw new UncheckedIOException("cadre.evals.locations: cannot read " + location, e);
            }
        }
        return new EvalSuites(catalog, files);
    }

    @Bean
    EvalStore evalStore(JdbcClient jdbc) {
        return new EvalStore(jdbc);
    }

    @Bean(destroyMethod = "close")
    EvalService evalService(
            EvalStore store,
            EvalSuites suites,
            RunService runs,
            AgentCatalog catalog,
            AuditLog audit,
            JsonMapper json,
            MeterRegistry registry,
            Clock clock,
            dev.cadre.platform.runs.RunEvents events) {
        return new EvalService(store, suites, runs, catalog, audit, json, registry, clock, events);
    }

    /** Evaluations a stopped process left running go on waiting for their (durable) runs. */
    @Bean
    ApplicationRunner resumeEvaluations(EvalService evals) {
        return args -> evals.resumeAll();
    }
}
