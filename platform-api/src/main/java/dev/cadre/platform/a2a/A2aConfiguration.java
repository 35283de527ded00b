package dev.cadre.platform.a2a;

import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.info.BuildProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the A2A server: the Agent Card and the JSON-RPC endpoint over Cadre's runs. */
@Configuration(proxyBeanMethods = false)
class A2aConfiguration {

    private static final Logger log = LoggerFactory.getLogger(A2aConfiguration.class);

    @Bean
    A2aSettings a2aSettings(
            @Value("${cadre.a2a.public-url:}") String publicUrl,
            @Value("${cadre.a2a.default-agent:ops-orchestrator}") String defaultAgent,
            @Value("${cadre.a2a.blocking-timeout:60s}") Duration blockingTimeout,
            ObjectProvider<BuildProperties> build) {
        if (blockingTimeout.isNegative() || blockingTimeout.isZero()) {
            throw new IllegalArgumentException("cadre.a2a.blocking-timeout must be positive, was " + blockingTimeout);
        }
        // Whether the default agent exists and is exposed over A2A is checked with the other settings
        // that name agents, when the catalogue loads (SettingsCrossCheck).
        BuildProperties info = build.getIfAvailable();
        String version = info != null && info.getVersion() != null
                ? info.getVersion()
                : Objects.requireNonNullElse(A2aConfiguration.class.getPackage().getImplementationVersion(), "dev");
        String base = publicUrl.isBlank() ? null : publicUrl.strip().replaceAll("/+$", "");
        if (base == null) {
            log.info("cadre.a2a.public-url is not set: the Agent Card derives its URL from each request's Host"
                    + " header and is not cacheable; set it in production (docs/security.md)");
        } else if (!base.matches("https?://[^\\s/?#]+(/[^\\s?#]*)?")) {
            throw new IllegalArgumentException(
                    "cadre.a2a.public-url must be an absolute http(s) URL without query or fragment, was '" + publicUrl
                            + "'");
        }
        return new A2aSettings(base, defaultAgent, blockingTimeout, version);
    }
}
