package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.ToolException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.config.hosts.KnownHostEntry;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntryResolver;
import org.apache.sshd.common.util.security.SecurityUtils;

/**
 * Runs a runbook script on a remote host over SSH (Apache MINA SSHD): the script is sent on standard
 * input to {@code sh -s} (nothing is installed on the host), its parameters as single-quoted
 * arguments and {@code RUNBOOK_*} variables. The host's key must be in the configured known-hosts file
 * under the host's name (an unknown or changed key refuses before anything runs, naming the host); the
 * client authenticates with the dedicated key only. Runtime and captured output are bounded.
 */
final class SshRunbookRunner {

    /** How a remote run ended. */
    record Result(int exitCode, String output, boolean truncated, long millis) {}

    private final OpsToolsProperties.Ssh config;

    SshRunbookRunner(OpsToolsProperties.Ssh config) {
        this.config = config;
    }

    /** Runs {@code script} on {@code host} with {@code values} as its parameters. */
    Result run(
            String host,
            Path script,
            Map<String, String> values,
            Map<String, String> env,
            Duration timeout,
            int maxOutputChars)
            throws ToolException, InterruptedException {
        if (config.key() == null || config.knownHosts() == null) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "ssh_not_configured",
                    "SSH runbooks need cadre.runbooks.ssh.key (the dedicated private key) and"
                            + " cadre.runbooks.ssh.known-hosts (the hosts' keys); not set, nothing ran on " + host);
        }
        String address = config.addresses().getOrDefault(host, host);
        String connectHost = address;
        int port = config.port();
        int colon = address.lastIndexOf(':');
        if (colon > 0 && address.indexOf(':') == colon) {
            connectHost = address.substring(0, colon);
            port = Integer.parseInt(address.substring(colon + 1));
        }
        AtomicReference<String> refused = new AtomicReference<>();
        SshClient client = SshClient.setUpDefaultClient();
        client.setServerKeyVerifier(verifier(host, port, refused));
        client.start();
        long t0 = System.nanoTime();
        try {
            KeyPair key = loadKey(config.key());
            ClientSession session;
            try {
                session = client.connect(config.user(), connectHost, port)
                        .verify(config.connectTimeout())
                        .getSession();
            } catch (IOException e) {
                throw new ToolException(
                        FailureCategory.COMMUNICATION_ERROR,
                        "ssh_unreachable",
                        "cannot connect to " + host + " (" + connectHost + ":" + port + ") over SSH: "
                                + e.getMessage());
            }
            try (session) {
                session.addPublicKeyIdentity(key);
                try {
                    session.auth().verify(config.connectTimeout());
                } catch (IOException e) {
                    if (refused.get() != null) {
                        throw new ToolException(FailureCategory.EXECUTION_ERROR, "ssh_host_key_refused", refused.get());
                    }
                    throw new ToolException(
                            FailureCategory.EXECUTION_ERROR,
                            "ssh_auth_failed",
                            "SSH login as " + config.user() + " on " + host + " failed: " + e.getMessage());
                }
                return exec(session, host, script, values, env, timeout, maxOutputChars, t0);
            }
        } catch (IOException e) {
            throw new ToolException(
                    FailureCategory.COMMUNICATION_ERROR, "ssh_failed", "SSH to " + host + " failed: " + e.getMessage());
        } finally {
            client.stop();
        }
    }

    private Result exec(
            ClientSession session,
            String host,
            Path script,
            Map<String, String> values,
            Map<String, String> env,
            Duration timeout,
            int maxOutputChars,
            long t0)
            throws IOException, ToolException {
        StringBuilder command = new StringBuilder("env");
        env.forEach((k, v) -> command.append(' ').append(k).append('=').append(quote(v)));
        command.append(" sh -s --");
        values.forEach((k, v) -> command.append(' ').append(quote("--" + k + "=" + v)));
        Bounded out = new Bounded(maxOutputChars * 4);
        try (ChannelExec channel = session.createExecChannel(command.toString())) {
            channel.setIn(new ByteArrayInputStream(Files.readAllBytes(script)));
            channel.setOut(out);
            channel.setErr(out);
            channel.open().verify(config.connectTimeout());
            Set<ClientChannelEvent> events =
                    channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED, ClientChannelEvent.EXIT_STATUS), timeout);
            if (!events.contains(ClientChannelEvent.EXIT_STATUS)) {
                channel.close(true);
                throw new ToolException(
                        FailureCategory.TIMEOUT_ERROR,
                        "runbook_timeout",
                        "runbook did not finish on " + host + " within " + timeout + "; its SSH channel was closed");
            }
            channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), Duration.ofSeconds(2));
            Integer status = channel.getExitStatus();
            String output = out.text();
            boolean truncated = out.truncated;
            if (output.length() > maxOutputChars) {
                output = output.substring(0, maxOutputChars);
                truncated = true;
            }
            return new Result(status == null ? -1 : status, output, truncated, (System.nanoTime() - t0) / 1_000_000);
        }
    }

    /**
     * Accepts the server's key only when the known-hosts file holds that key for the host's name
     * ({@code web-1} or {@code [web-1]:port}); otherwise remembers why (unknown or changed key).
     */
    private ServerKeyVerifier verifier(String host, int port, AtomicReference<String> refused) {
        return (ClientSession session, SocketAddress remote, PublicKey serverKey) -> {
            List<KnownHostEntry> entries;
            try {
                entries = KnownHostEntry.readKnownHostEntries(config.knownHosts());
            } catch (IOException e) {
                refused.set("cannot read the known-hosts file " + config.knownHosts() + ": " + e.getMessage()
                        + "; nothing ran on " + host);
                return false;
            }
            boolean named = false;
            for (KnownHostEntry entry : entries) {
                if (!entry.isHostMatch(host, port) && !entry.isHostMatch(host, 22)) {
                    continue;
                }
                named = true;
                try {
                    PublicKey known = entry.getKeyEntry()
                            .resolvePublicKey(session, Collections.emptyMap(), PublicKeyEntryResolver.IGNORING);
                    if (known != null && KeyUtils.compareKeys(known, serverKey)) {
                        return true;
                    }
                } catch (IOException | java.security.GeneralSecurityException e) {
                    // an entry that cannot be read matches nothing
                }
            }
            String fingerprint = KeyUtils.getFingerPrint(serverKey);
            refused.set(
                    named
                            ? "the SSH host key of " + host + " changed (it now presents " + fingerprint
                                    + ", not the key in " + config.knownHosts() + "): refused, nothing ran on " + host
                            : "the SSH host key of " + host + " (" + fingerprint + ") is not in " + config.knownHosts()
                                    + ": unknown host refused, nothing ran on " + host);
            return false;
        };
    }

    private static KeyPair loadKey(Path path) throws IOException, ToolException {
        try (InputStream in = Files.newInputStream(path)) {
            Iterable<KeyPair> keys =
                    SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName(path.toString()), in, null);
            if (keys != null) {
                for (KeyPair k : keys) {
                    return k;
                }
            }
        } catch (java.security.GeneralSecurityException e) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "ssh_key_unreadable",
                    "cannot read the SSH key " + path + ": " + e);
        }
        throw new ToolException(FailureCategory.EXECUTION_ERROR, "ssh_key_unreadable", "no key in " + path);
    }

    /** A single-quoted word for the remote shell. */
    static String quote(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }

    /** Keeps the first {@code limit} bytes, remembers that more came. */
    private static final class Bounded extends OutputStream {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final int limit;
        volatile boolean truncated;

        Bounded(int limit) {
            this.limit = limit;
        }

        @Override
        public synchronized void write(int b) {
            if (buffer.size() < limit) {
                buffer.write(b);
            } else {
                truncated = true;
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            int room = limit - buffer.size();
            if (room > 0) {
                buffer.write(b, off, Math.min(room, len));
            }
            if (len > room) {
                truncated = true;
            }
        }

        synchronized String text() {
            return buffer.toString(StandardCharsets.UTF_8);
        }
    }
}
