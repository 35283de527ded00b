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
        if (args.length > 0 && args[0].equals("eval")) {
            // A client of a running platform (docs/evals.md), not a second platform: no Spring context.
            System.exit(dev.cadre.platform.evals.EvalCli.main(
                    java.util.Arrays.copyOfRange(args, 1, args.length), System.getenv()));
        }
        if (args.length > 0 && args[0].equals("replay")) {
            // The platform in this process, on a private in-memory database (docs/replay.md).
            System.exit(dev.cadre.platform.replay.ReplayCli.main(
                    java.util.Arrays.copyOfRange(args, 1, args.length), CadreApplication.class));
        }
        StopSignals.exitCleanly();
        SpringApplication.run(CadreApplication.class, args);
    }
}
