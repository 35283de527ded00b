package dev.cadre.platform.models;

import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The wait a provider asked for, read from the failed call's response headers whatever client threw
 * it (OpenAI's and Anthropic's SDKs, Spring's RestClient): {@code retry-after-ms} (OpenAI), else
 * {@code Retry-After} as seconds or as an HTTP date (RFC 9110).
 */
final class RetryAfter {

    private RetryAfter() {}

    static @Nullable Duration of(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String ms = header(t, "retry-after-ms");
            if (ms != null) {
                try {
                    return Duration.ofMillis(Math.max(0, (long) Double.parseDouble(ms.trim())));
                } catch (NumberFormatException ignored) {
                    // fall back to Retry-After
                }
            }
            String value = header(t, "retry-after");
            if (value != null) {
                return parse(value, Instant.now());
            }
        }
        return null;
    }

    /** Seconds ({@code 2}, {@code 1.5}) or an HTTP date; null when neither. A date in the past is no wait. */
    static @Nullable Duration parse(String value, Instant now) {
        String v = value.trim();
        try {
            double seconds = Double.parseDouble(v);
            return seconds < 0 ? null : Duration.ofMillis((long) (seconds * 1000));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME)
                        .toInstant();
                Duration d = Duration.between(now, at);
                return d.isNegative() ? Duration.ZERO : d;
            } catch (RuntimeException notADate) {
                return null;
            }
        }
    }

    /** A response header of an exception that carries them (SDK {@code headers()}, Spring {@code getResponseHeaders()}). */
    private static @Nullable String header(Throwable t, String name) {
        for (String accessor : new String[] {"headers", "getResponseHeaders"}) {
            try {
                Method m = t.getClass().getMethod(accessor);
                Object headers = m.invoke(t);
                if (headers == null) {
                    continue;
                }
                String v = first(headers, name);
                if (v != null) {
                    return v;
                }
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not this kind of exception
            }
        }
        return null;
    }

    private static @Nullable String first(Object headers, String name) throws ReflectiveOperationException {
        // openai-java and anthropic-java: Headers.values(String) -> List<String>, case-insensitive.
        for (Method m : headers.getClass().getMethods()) {
            if (m.getName().equals("values")
                    && m.getParameterCount() == 1
                    && m.getParameterTypes()[0] == String.class) {
                m.setAccessible(true);
                Object v = m.invoke(headers, name);
                if (v instanceof List<?> l && !l.isEmpty()) {
                    return String.valueOf(l.getFirst());
                }
                return null;
            }
        }
        // Spring's HttpHeaders.getFirst(String), case-insensitive.
        try {
            Method m = headers.getClass().getMethod("getFirst", String.class);
            Object v = m.invoke(headers, name);
            if (v != null) {
                return v.toString();
            }
            v = m.invoke(headers, name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.toString();
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
