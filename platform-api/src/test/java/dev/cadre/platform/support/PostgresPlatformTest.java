package dev.cadre.platform.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * As {@link PlatformTest}, on PostgreSQL ({@code CADRE_TEST_POSTGRES_URL}): the test class adds
 * a {@code @DynamicPropertySource} method calling {@link PostgresSchemas#fresh}, so each class migrates an
 * empty schema of its own.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY,
            "cadre.http.max-body-bytes=65536",
            "cadre.agents.locations=classpath:agents/*.yaml,classpath:test-agents/*.yaml",
            "cadre.tracing.store-delay=PT0.05S",
            "cadre.runbooks.dir=target/runbooks",
            "cadre.approvals.separation-of-duties=false",
            "cadre.metrics.memory-namespaces=incidents,metrics-test"
        })
@Import(TestTools.class)
public @interface PostgresPlatformTest {}
