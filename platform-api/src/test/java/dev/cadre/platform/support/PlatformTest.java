package dev.cadre.platform.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * The one Spring context most platform tests share (same properties → cached once per JVM): the
 * embedded default on an in-memory H2 database, served on a random port, with a known admin key.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:cadre-test;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.http.max-body-bytes=65536",
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.tracing.store-delay=PT0.05S",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.tools.workspace.dir=target/workspaces",
            // Most tests submit and decide with the one admin key; SecurityAttackTest runs with the
            // production default (on) and shows the refusal.
            "cadre.approvals.separation-of-duties=false",
            "cadre.metrics.memory-namespaces=incidents,metrics-test",
            // Retention passes only when a test runs one (RetentionTest), not on the hourly timer.
            "cadre.retention.enabled=false"
        })
@Import(TestTools.class)
public @interface PlatformTest {}
