package dev.cadre.platform.models;

import java.io.InterruptedIOException;
import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

/**
 * What a provider failure means, whatever client threw it (OpenAI's and Anthropic's SDKs, Spring's
 * RestClient): rate limited and 5xx are retryable, so are timeouts and refused connections; other
 * 4xx and unparseable answers are not.
 */
record ProviderError(String code, String message, boolean retryable) {

    /** Whether the failure says the provider is unavailable (what opens its circuit): 5xx, unreachable, timeout. */
    boolean unavailable() {
        return code.equals("provider_unavailable")
                || code.equals("provider_unreachable")
                || code.equals("provider_timeout");
    }

    static ProviderError classify(String provider, Throwable e) {
        Integer status = null;
        boolean timeout = false;
        boolean unreachable = false;
        boolean malformed = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (status == null) {
                status = statusOf(t);
            }
            timeout |= t instanceof SocketTimeoutException
                    || t instanceof HttpTimeoutException
                    || t instanceof TimeoutException
                    || (t instanceof InterruptedIOException
                            && String.valueOf(t.getMessage()).contains("timeout"));
            unreachable |= t instanceof ConnectException || t instanceof UnknownHostException;
            String name = t.getClass().getName();
            malformed |= name.endsWith("InvalidDataException")
                    || name.contains("JsonParseException")
                    || name.contains("MismatchedInputException")
                    || name.contains("StreamReadException")
                    || name.contains("JsonMappingException")
                    || name.contains("DatabindException");
            if (t.getCause() == t) {
                break;
            }
        }
        String detail = first(e);
        if (status != null) {
            if (status == 429) {
                return new ProviderError(
                        "provider_rate_limited", provider + " rate-limited the call (429): " + detail, true);
            }
            if (status >= 500) {
                return new ProviderError(
                        "provider_unavailable", provider + " answered " + status + ": " + detail, true);
            }
            if (status == 401 || status == 403) {
                return new ProviderError(
                        "provider_auth", provider + " refused the credentials (" + status + ")", false);
            }
            return new ProviderError(
                    "provider_rejected", provider + " rejected the request (" + status + "): " + detail, false);
        }
        if (timeout) {
            return new ProviderError("provider_timeout", provider + " did not answer in time: " + detail, true);
        }
        if (unreachable) {
            return new ProviderError("provider_unreachable", provider + " is unreachable: " + detail, true);
        }
        if (malformed) {
            return new ProviderError(
                    "malformed_response", provider + " answered something unparseable: " + detail, false);
        }
        return new ProviderError("provider_error", provider + " call failed: " + detail, false);
    }

    private static Integer statusOf(Throwable t) {
        for (String name : new String[] {"statusCode", "getStatusCode", "getRawStatusCode"}) {
            try {
                Method m = t.getClass().getMethod(name);
                Object v = m.invoke(t);
                if (v instanceof Integer i) {
                    return i;
                }
                if (v != null) {
                    Method value = v.getClass().getMethod("value");
                    value.setAccessible(true);
                    Object i = value.invoke(v);
                    if (i instanceof Integer n) {
                        return n;
                    }
                }
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not this kind of exception
            }
        }
        return null;
    }

    private static String first(Throwable e) {
        String m = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        m = m.replaceAll("\\s+", " ");
        return m.length() > 160 ? m.substring(0, 159) + "…" : m;
    }
}
