package dev.cadre.platform.outbox;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The outbox's metrics, all with closed label sets (channels are configured names, never receivers'
 * addresses): {@code cadre_outbox_deliveries{state}} rows pending, delivered and failed in the table;
 * {@code cadre_outbox_attempts_total{channel,result}} with result {@code delivered}, {@code retry}
 * (a transient failure, tried again later) or {@code refused}; {@code
 * cadre_outbox_settled_total{channel,state}} deliveries that ended delivered or failed (after N
 * attempts, or refused).
 */
final class OutboxMetrics {

    static final String[] RESULTS = {"delivered", "retry", "refused"};

    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    OutboxMetrics(MeterRegistry registry, Collection<String> channels, Supplier<Map<DeliveryState, Long>> counts) {
        for (DeliveryState state : DeliveryState.values()) {
            Gauge.builder("cadre.outbox.deliveries", counts, c -> {
                        try {
                            return c.get().get(state);
                        } catch (RuntimeException databaseDown) {
                            return Double.NaN;
                        }
                    })
                    .description("Outbox deliveries in the table by state")
                    .tag("state", state.wire())
                    .register(registry);
        }
        for (String channel : channels) {
            for (String result : RESULTS) {
                counters.put(
                        "a|" + channel + "|" + result,
                        Counter.builder("cadre.outbox.attempts")
                                .description("Delivery attempts by channel and result")
                                .tag("channel", channel)
                                .tag("result", result)
                                .register(registry));
            }
            for (DeliveryState state : new DeliveryState[] {DeliveryState.DELIVERED, DeliveryState.FAILED}) {
                counters.put(
                        "s|" + channel + "|" + state.wire(),
                        Counter.builder("cadre.outbox.settled")
                                .description("Deliveries that ended, by channel and final state")
                                .tag("channel", channel)
                                .tag("state", state.wire())
                                .register(registry));
            }
        }
    }

    void attempt(String channel, String result) {
        Counter c = counters.get("a|" + channel + "|" + result);
        if (c != null) {
            c.increment();
        }
    }

    void settled(String channel, DeliveryState state) {
        Counter c = counters.get("s|" + channel + "|" + state.wire());
        if (c != null) {
            c.increment();
        }
    }
}
