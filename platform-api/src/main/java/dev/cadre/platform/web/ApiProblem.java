package dev.cadre.platform.web;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;

/**
 * An error a request handler answers with: becomes an RFC 9457 problem-details body whose
 * {@code type}, {@code title}, {@code detail} and extra properties (e.g. the field at fault)
 * tell the client exactly what is wrong.
 */
public class ApiProblem extends RuntimeException {

    private static final java.util.Set<String> RESERVED =
            java.util.Set.of("type", "title", "status", "detail", "instance");

    private final HttpStatus status;
    private final String type;
    private final String title;
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    public ApiProblem(HttpStatus status, String type, String title, String detail) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public static ApiProblem notFound(String what, String id) {
        return new ApiProblem(
                        HttpStatus.NOT_FOUND, "not-found", what + " not found", what + " '" + id + "' does not exist")
                .with("resource", what)
                .with("id", id);
    }

    public static ApiProblem badField(String field, String detail) {
        return new ApiProblem(HttpStatus.BAD_REQUEST, "invalid-field", "Invalid request field", field + ": " + detail)
                .with("field", field);
    }

    public static ApiProblem badHeader(String header, String detail) {
        return new ApiProblem(
                        HttpStatus.BAD_REQUEST, "invalid-header", "Invalid request header", header + ": " + detail)
                .with("header", header);
    }

    public static ApiProblem conflict(String detail) {
        return new ApiProblem(HttpStatus.CONFLICT, "conflict", "Conflict", detail);
    }

    /**
     * Adds an extension member. The RFC 9457 members are off limits: an extension named
     * {@code status} would be written after the real one and replace the HTTP status for clients.
     */
    public ApiProblem with(String name, Object value) {
        if (RESERVED.contains(name)) {
            throw new IllegalArgumentException("'" + name + "' is a problem-details member, not an extension");
        }
        properties.put(name, value);
        return this;
    }

    /** Adds a response header (e.g. {@code Retry-After} on a 429). */
    public ApiProblem header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public HttpStatus status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public Map<String, Object> properties() {
        return properties;
    }
}
