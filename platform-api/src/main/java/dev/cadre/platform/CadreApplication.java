package dev.cadre.platform;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The Cadre platform: wires agent-core and memory into a secured REST/SSE/A2A service. */
// Users are API keys (and console sessions made from them): no generated in-memory user.
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
@EnableScheduling
public class CadreApplication {

    public static void main(String[] args) {
        SpringApplication.run(CadreApplication.class, args);
    }
}
