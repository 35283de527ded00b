package dev.cadre.platform;

import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM are how the platform is meant to be stopped, so they end it with exit
 * code 0 after the usual graceful shutdown (shutdown hooks run as on any exit). The JVM's own handlers
 * exit with 130 or 143, which tools read as a crash: {@code spring-boot:run}, which ends the forked
 * platform with SIGTERM on Ctrl-C, reported {@code BUILD FAILURE … exit code 143}.
 */
final class StopSignals {

    private StopSignals() {}

    static void exitCleanly() {
        for (String name : new String[] {"INT", "TERM"}) {
            try {
                Signal.handle(new Signal(name), signal -> {
                    // Not on the signal dispatcher's thread: System.exit waits for the shutdown hooks.
                    Thread exit = new Thread(() -> System.exit(0), "cadre-stop-" + signal.getName());
                    exit.start();
                });
            } catch (IllegalArgumentException notAvailable) {
                // -Xrs, or a platform without this signal: the JVM's own handling stays.
            }
        }
    }
}
