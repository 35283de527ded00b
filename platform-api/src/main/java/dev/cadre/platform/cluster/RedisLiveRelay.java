package dev.cadre.platform.cluster;

import dev.cadre.platform.runs.LiveRelay;
import dev.cadre.platform.runs.RunEvents;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Live pieces across instances over Redis pub/sub, a channel per run ({@code <prefix>:live:<run>}).
 * An instance subscribes to a run's channel only while one of its readers follows that run, and
 * then announces it ({@code <prefix>:live-follow}); the executing instance publishes a run's pieces
 * only once it knows a reader elsewhere follows it (the channel's subscribers when the run's first
 * piece comes, then the announcements). Pieces are already redacted; nothing is stored in Redis.
 * Best effort like every live piece: a piece lost here is still in the turn's stored text.
 */
public final class RedisLiveRelay implements LiveRelay, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisLiveRelay.class);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final String prefix;
    private final String instance;
    private final String announcements;
    private final StatefulRedisConnection<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> pubsub;
    /** Sinks of this instance's readers, by run. */
    private final Map<String, Set<Consumer<RunEvents.LiveEvent>>> sinks = new ConcurrentHashMap<>();
    /** Runs executing here whose pieces have a reader elsewhere (true) or had none when last known. */
    private final Map<String, Boolean> followed = new ConcurrentHashMap<>();

    public RedisLiveRelay(RedisClient client, String prefix, String instance) {
        this.prefix = prefix;
        this.instance = instance;
        this.announcements = prefix + ":live-follow";
        this.commands = client.connect();
        this.commands.setTimeout(RedisRunQueue.COMMAND_TIMEOUT);
        this.pubsub = client.connectPubSub();
        this.pubsub.setTimeout(RedisRunQueue.COMMAND_TIMEOUT);
        this.pubsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                receive(channel, message);
            }
        });
        this.pubsub.sync().subscribe(announcements);
    }

    private String channel(String runId) {
        return prefix + ":live:" + runId;
    }

    @Override
    public boolean followedElsewhere(String runId) {
        return followed.computeIfAbsent(runId, this::subscribedElsewhere);
    }

    /** Whether the run's channel has a subscriber besides this instance (asked once per run). */
    private boolean subscribedElsewhere(String runId) {
        try {
            Long n = commands.sync().pubsubNumsub(channel(runId)).get(channel(runId));
            int own = sinks.containsKey(runId) ? 1 : 0;
            return n != null && n - own > 0;
        } catch (RuntimeException e) {
            log.debug("Followers of run {} unknown ({}); pieces stay on this instance", runId, e.getMessage());
            return false;
        }
    }

    @Override
    public void publish(String runId, RunEvents.LiveEvent event) {
        ObjectNode m = JSON.createObjectNode();
        m.put("from", instance);
        m.put("afterSeq", event.afterSeq());
        m.put("type", event.type());
        m.put("main", event.mainStream());
        m.set("data", event.data());
        // Fire and forget: the model's stream must not wait on Redis.
        commands.async().publish(channel(runId), m.toString());
    }

    @Override
    public AutoCloseable follow(String runId, Consumer<RunEvents.LiveEvent> sink) {
        boolean[] first = {false};
        sinks.compute(runId, (k, set) -> {
            Set<Consumer<RunEvents.LiveEvent>> s = set != null ? set : ConcurrentHashMap.newKeySet();
            first[0] = s.isEmpty();
            s.add(sink);
            return s;
        });
        if (first[0]) {
            try {
                // Subscribed (confirmed) before announced: a piece published after the announcement
                // reaches this instance.
                pubsub.sync().subscribe(channel(runId));
                commands.sync().publish(announcements, runId);
            } catch (RuntimeException e) {
                log.warn(
                        "Not following run {} across instances ({}): live pieces from elsewhere are lost",
                        runId,
                        e.getMessage());
            }
        }
        return () -> unfollow(runId, sink);
    }

    private void unfollow(String runId, Consumer<RunEvents.LiveEvent> sink) {
        boolean[] last = {false};
        sinks.computeIfPresent(runId, (k, set) -> {
            set.remove(sink);
            last[0] = set.isEmpty();
            return set.isEmpty() ? null : set;
        });
        if (last[0]) {
            try {
                pubsub.async().unsubscribe(channel(runId));
            } catch (RuntimeException e) {
                log.debug("Unsubscribing from run {} failed: {}", runId, e.getMessage());
            }
        }
    }

    private void receive(String channel, String message) {
        if (channel.equals(announcements)) {
            // A reader elsewhere follows this run now: if it executes here, publish its pieces.
            followed.computeIfPresent(message, (k, v) -> Boolean.TRUE);
            return;
        }
        String runId = channel.substring((prefix + ":live:").length());
        Set<Consumer<RunEvents.LiveEvent>> s = sinks.get(runId);
        if (s == null) {
            return;
        }
        try {
            JsonNode m = JSON.readTree(message);
            if (instance.equals(m.path("from").asString(""))) {
                return; // this instance's readers had it in memory
            }
            RunEvents.LiveEvent e = new RunEvents.LiveEvent(
                    m.path("afterSeq").asLong(),
                    m.path("type").asString(""),
                    m.path("main").asBoolean(),
                    (ObjectNode) m.path("data"));
            s.forEach(sink -> sink.accept(e));
        } catch (RuntimeException e) {
            log.debug("Ignoring a live piece on {}: {}", channel, e.getMessage());
        }
    }

    @Override
    public void forget(String runId) {
        followed.remove(runId);
    }

    @Override
    public void close() {
        pubsub.close();
        commands.close();
    }
}
