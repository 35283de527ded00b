package dev.cadre.platform;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The Cadre platform: wires agent-core and memory into a secured REST/SSE/A2A service. */
@SpringBootApplication
public class CadreApplication {

    public static void main(String[] args) {
        SpringApplication.run(CadreApplication.class, args);
    }
}
