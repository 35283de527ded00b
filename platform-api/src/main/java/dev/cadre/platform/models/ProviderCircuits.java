package dev.cadre.platform.models;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/** The circuit breakers of the configured provider endpoints, one per provider name. */
public final class ProviderCircuits {

    private final Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();

    ProviderCircuits(
            Collection<String> providers, ModelsProperties.CircuitBreakerSettings settings, LongSupplier nanoClock) {
        for (String p : providers) {
            breakers.put(p, new CircuitBreaker(p, settings.failureThreshold(), settings.openDuration(), nanoClock));
        }
    }

    CircuitBreaker of(String provider) {
        CircuitBreaker b = breakers.get(provider);
        if (b == null) {
            throw new IllegalArgumentException("no provider '" + provider + "'");
        }
        return b;
    }

    List<CircuitBreaker> all() {
        return List.copyOf(breakers.values());
    }
}
