package dev.cadre.platform.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Debian's real OpenSSH server ({@code openssh-server}, installed by {@code ./test}) on a free loopback
 * port, run as the current user with throw-away keys: {@code sshd -D -f <config> -p <port>} with
 * StrictModes and PAM off, public-key login only, for the current user with the throw-away user key.
 * {@link #knownHosts} holds its host key under the name the tests give the "host" ({@code web-1}).
 */
public final class RealSshd implements AutoCloseable {

    public static final File SSHD = new File("/usr/sbin/sshd");

    private final Path dir;
    private final int port;
    private final Process process;

    private RealSshd(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /** Starts an sshd whose host key is known as {@code hostName} in {@link #knownHosts()}. */
    public static RealSshd start(String hostName) throws IOException, InterruptedException {
        assertThat(SSHD)
                .as("sshd missing: apt-get install -y openssh-server (./test does it)")
                .exists();
        Path dir = Files.createTempDirectory("cadre-sshd");
        keygen(dir.resolve("host_key"), "ecdsa");
        keygen(dir.resolve("user_key"), "ecdsa");
        keygen(dir.resolve("other_key"), "ecdsa");
        // The other key types a deployment may give the platform, each authorised too (see userKey(type)).
        keygen(dir.resolve("user_key_ed25519"), "ed25519");
        keygen(dir.resolve("user_key_rsa"), "rsa");
        Files.writeString(
                dir.resolve("authorized_keys"),
                Files.readString(dir.resolve("user_key.pub"))
                        + Files.readString(dir.resolve("user_key_ed25519.pub"))
                        + Files.readString(dir.resolve("user_key_rsa.pub")));
        Files.writeString(dir.resolve("known_hosts"), hostName + " " + publicKey(dir.resolve("host_key.pub")) + "\n");
        Files.writeString(
                dir.resolve("known_hosts_changed"), hostName + " " + publicKey(dir.resolve("other_key.pub")) + "\n");
        Files.writeString(dir.resolve("known_hosts_empty"), "");
        String user = System.getProperty("user.name");
        Files.writeString(dir.resolve("sshd_config"), """
                ListenAddress 127.0.0.1
                HostKey %1$s/host_key
                PidFile %1$s/sshd.pid
                AuthorizedKeysFile %1$s/authorized_keys
                StrictModes no
                UsePAM no
                PasswordAuthentication no
                KbdInteractiveAuthentication no
                PubkeyAuthentication yes
                PermitRootLogin prohibit-password
                AllowUsers %2$s
                LogLevel VERBOSE
                """.formatted(dir, user));
        if (user.equals("root")) {
            // sshd started by root separates privileges into this directory; a service would create it.
            Files.createDirectories(Path.of("/run/sshd"));
        }
        int port = PlatformProcess.freePort();
        Process p = new ProcessBuilder(
                        SSHD.getPath(),
                        "-D",
                        "-e",
                        "-f",
                        dir.resolve("sshd_config").toString(),
                        "-p",
                        Integer.toString(port))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("sshd.log").toFile())
                .start();
        RealSshd sshd = new RealSshd(dir, port, p);
        Await.until(
                "sshd on 127.0.0.1:" + port + " (log: " + dir.resolve("sshd.log") + ")",
                () -> {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("sshd exited: " + sshd.log());
                    }
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                        return true;
                    } catch (IOException e) {
                        return false;
                    }
                },
                up -> up);
        return sshd;
    }

    private static void keygen(Path key, String type) throws IOException, InterruptedException {
        // ECDSA for the host and the default user key: Apache MINA SSHD reads it with the JDK alone (Ed25519
        // needs Bouncy Castle, which the platform has through the Kubernetes client).
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("ssh-keygen", "-q", "-t", type));
        if (!type.equals("ed25519")) {
            cmd.addAll(java.util.List.of("-b", type.equals("rsa") ? "3072" : "256"));
        }
        cmd.addAll(java.util.List.of("-N", "", "-C", "cadre-test", "-f", key.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("ssh-keygen: " + out).isZero();
    }

    private static String publicKey(Path pub) throws IOException {
        String[] parts = Files.readString(pub).strip().split(" ");
        return parts[0] + " " + parts[1];
    }

    public int port() {
        return port;
    }

    /** The throw-away private key the platform logs in with. */
    public Path userKey() {
        return dir.resolve("user_key");
    }

    /** Another authorised private key, of {@code type} {@code ecdsa}, {@code ed25519} or {@code rsa}. */
    public Path userKey(String type) {
        return type.equals("ecdsa") ? userKey() : dir.resolve("user_key_" + type);
    }

    /** A known_hosts file with this server's key under the host name. */
    public Path knownHosts() {
        return dir.resolve("known_hosts");
    }

    /** A known_hosts file with another key under the host name: as if the host's key had changed. */
    public Path changedKnownHosts() {
        return dir.resolve("known_hosts_changed");
    }

    /** An empty known_hosts file: the host is unknown. */
    public Path emptyKnownHosts() {
        return dir.resolve("known_hosts_empty");
    }

    public String log() {
        try {
            return Files.readString(dir.resolve("sshd.log"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
