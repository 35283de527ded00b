package dev.cadre.platform.mcp;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Who owns each MCP session and when it was last used. A session unused for {@code
 * cadre.mcp.session-idle-timeout} expires, and a key holds at most {@code
 * cadre.mcp.max-sessions-per-key}: opening one more retires that key's least recently used session
 * (clients that never send {@code DELETE} reconnect without being locked out; one key cannot grow
 * the platform's memory). A retired session answers 404 at once — the MCP client's cue to initialise
 * a new one — and is deleted from the SDK by {@link McpEndpoint}'s sweep.
 */
final class McpSessions {

    private static final class Entry {
        final String owner;
        volatile Instant lastUsed;

        Entry(String owner, Instant lastUsed) {
            this.owner = owner;
            this.lastUsed = lastUsed;
        }
    }

    private final Map<String, Entry> sessions = new ConcurrentHashMap<>();
    private final Queue<String> retired = new ConcurrentLinkedQueue<>();
    private final Clock clock;
    private final Duration idleTimeout;
    private final int maxPerKey;

    McpSessions(Clock clock, Duration idleTimeout, int maxPerKey) {
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("cadre.mcp.session-idle-timeout must be positive, was " + idleTimeout);
        }
        if (maxPerKey < 1) {
            throw new IllegalArgumentException("cadre.mcp.max-sessions-per-key must be at least 1, was " + maxPerKey);
        }
        this.clock = clock;
        this.idleTimeout = idleTimeout;
        this.maxPerKey = maxPerKey;
    }

    /** A session the SDK just opened for {@code owner}; retires the owner's oldest beyond the cap. */
    synchronized void opened(String id, String owner) {
        sessions.put(id, new Entry(owner, clock.instant()));
        List<Map.Entry<String, Entry>> mine = new ArrayList<>(sessions.entrySet().stream()
                .filter(e -> e.getValue().owner.equals(owner))
                .toList());
        if (mine.size() <= maxPerKey) {
            return;
        }
        mine.sort(Comparator.comparing(e -> e.getValue().lastUsed));
        for (int i = 0; i < mine.size() - maxPerKey; i++) {
            retire(mine.get(i).getKey());
        }
    }

    /** Whether {@code owner} may use session {@code id} (it exists and is theirs); marks it used. */
    boolean use(String id, String owner) {
        Entry e = sessions.get(id);
        if (e == null || !e.owner.equals(owner)) {
            return false;
        }
        e.lastUsed = clock.instant();
        return true;
    }

    /** A session its client deleted. */
    void closed(String id) {
        sessions.remove(id);
    }

    /** Retires sessions idle past the timeout; returns every retired session not yet deleted from the SDK. */
    List<String> sweep() {
        Instant idleSince = clock.instant().minus(idleTimeout);
        sessions.forEach((id, e) -> {
            if (e.lastUsed.isBefore(idleSince)) {
                retire(id);
            }
        });
        List<String> out = new ArrayList<>();
        for (String id; (id = retired.poll()) != null; ) {
            out.add(id);
        }
        return out;
    }

    private void retire(String id) {
        if (sessions.remove(id) != null) {
            retired.add(id);
        }
    }

    /** Open sessions, for the gauge and tests. */
    int size() {
        return sessions.size();
    }

    /** Open sessions of {@code owner}. */
    int count(String owner) {
        return (int)
                sessions.values().stream().filter(e -> e.owner.equals(owner)).count();
    }
}
