package dev.cadre.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.PlatformProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Ctrl-C and SIGTERM stop the packaged platform cleanly: a graceful shutdown and exit code 0. The JVM's
 * own 130/143 made {@code ./mvnw -pl platform-api -am spring-boot:run} (which ends its forked platform
 * with SIGTERM when Ctrl-C is pressed) print {@code BUILD FAILURE … exit code 143}.
 */
class StopSignalIT {

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM"})
    void aStopSignal_endsThePlatformGracefully_withExitCodeZero(String signal) throws Exception {
        Path work = Files.createDirectories(Path.of("target", "stop-signal-it", signal));
        // As from a terminal: the suite itself may run in the background with SIGINT ignored, which
        // its children inherit and a JVM then cannot handle (the INT case failed a backgrounded full run).
        try (PlatformProcess platform = PlatformProcess.startAsFromATerminal(
                "stop-" + signal.toLowerCase(java.util.Locale.ROOT),
                PlatformProcess.freePort(),
                work,
                PlatformProcess.DEFAULT_JVM_OPTIONS,
                work,
                List.of("--cadre.security.bootstrap-api-key=" + Api.ADMIN_KEY))) {
            platform.awaitHealthy(Duration.ofMinutes(3));

            int exit = platform.signalAndWait(signal, Duration.ofSeconds(60));

            assertThat(exit).as(platform.logTail(40)).isZero();
            assertThat(Files.readString(platform.log()))
                    .contains("Commencing graceful shutdown")
                    .contains("Graceful shutdown complete");
        }
    }
}
