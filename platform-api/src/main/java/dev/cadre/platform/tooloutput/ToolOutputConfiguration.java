package dev.cadre.platform.tooloutput;

import dev.cadre.agent.tool.output.ToolOutputs;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/** The tool output budget and the database store behind it, for the agent runner and the REST API. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ToolOutputProperties.class)
class ToolOutputConfiguration {

    @Bean
    ToolOutputs toolOutputs(
            ToolOutputProperties properties,
            JdbcClient jdbc,
            JdbcTemplate template,
            TransactionTemplate tx,
            Clock clock,
            SecretRedactor redactor) {
        // Redacted once, when kept: what tool_output_read and the REST API return is already masked.
        return new ToolOutputs(
                new JdbcToolOutputStore(jdbc, template, tx, clock),
                properties.budget(),
                (tool, text) -> redactor.redactText(text));
    }
}
