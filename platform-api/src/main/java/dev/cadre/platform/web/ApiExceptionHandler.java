package dev.cadre.platform.web;

import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.authorization.AuthorizationDeniedException;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.HandlerMethodValidationException;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;

/**
 * Turns every error of the REST API into an RFC 9457 problem-details body that names the field or
 * header at fault. Unexpected errors become a 500 with an incident id to find in the log — never
 * a stack trace.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);
    private static final Pattern TOMCAT_PARAMETER = Pattern.compile("Parameter \\[([^\\]]{0,100})\\]");

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<ProblemDetail> apiProblem(ApiProblem e) {
        ProblemDetail pd = Problems.of(e.status(), e.type(), e.title(), e.getMessage());
        e.properties().forEach(pd::setProperty);
        ResponseEntity<ProblemDetail> response = Problems.response(pd);
        if (e.headers().isEmpty()) {
            return response;
        }
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(response.getHeaders());
        e.headers().forEach(headers::set);
        return new ResponseEntity<>(pd, headers, response.getStatusCode());
    }

    /**
     * Tomcat refuses to decode a query (or form) parameter that is not valid percent-encoded
     * UTF-8, e.g. {@code ?%zz=1}, when the handler first asks for a parameter.
     */
    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<ProblemDetail> undecodableParameter(InvalidParameterException e) {
        Matcher m = TOMCAT_PARAMETER.matcher(String.valueOf(e.getMessage()));
        String name = m.find() ? m.group(1) : null;
        ProblemDetail pd = Problems.of(
                HttpStatus.BAD_REQUEST,
                "invalid-parameter",
                "Invalid request parameter",
                "the query string is not valid percent-encoded UTF-8"
                        + (name == null ? "" : " (at parameter '" + name + "')"));
        if (name != null) {
            pd.setProperty("parameter", name);
        }
        return Problems.response(pd);
    }

    /**
     * A chunked body that outgrows {@code cadre.http.max-body-bytes} while a handler reads it
     * itself (the A2A endpoint does); a declared length over the limit never gets this far.
     */
    @ExceptionHandler(RequestSizeLimitFilter.BodyTooLargeException.class)
    ResponseEntity<ProblemDetail> bodyTooLarge(RequestSizeLimitFilter.BodyTooLargeException e) {
        return Problems.response(Problems.of(
                HttpStatus.CONTENT_TOO_LARGE,
                "body-too-large",
                "Request body too large",
                "the request body exceeds the limit (cadre.http.max-body-bytes)"));
    }

    /**
     * The firewall checks header values and parameter names when they are first read — inside a
     * handler, after the filter chain's own check. Header values stay out of the detail: one may
     * be a credential.
     */
    @ExceptionHandler(RequestRejectedException.class)
    ResponseEntity<ProblemDetail> rejected(RequestRejectedException e) {
        return Problems.response(Problems.of(
                HttpStatus.BAD_REQUEST,
                "request-rejected",
                "Request rejected",
                String.valueOf(e.getMessage())
                        .replaceAll("(?s)has a value \".*\" that", "has a value that")
                        .replaceAll("(?s)parameter name \".{40,}\" is", "parameter name (too long to repeat) is")));
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> typeMismatch(MethodArgumentTypeMismatchException e) {
        ProblemDetail pd = Problems.of(
                HttpStatus.BAD_REQUEST,
                "invalid-parameter",
                "Invalid request parameter",
                e.getName() + ": '" + e.getValue() + "' is not a valid "
                        + (e.getRequiredType() == null
                                ? "value"
                                : e.getRequiredType().getSimpleName().toLowerCase(java.util.Locale.ROOT)));
        pd.setProperty("parameter", e.getName());
        return Problems.response(pd);
    }

    @ExceptionHandler({AccessDeniedException.class, AuthorizationDeniedException.class})
    ResponseEntity<ProblemDetail> denied(RuntimeException e) {
        return Problems.response(
                Problems.of(HttpStatus.FORBIDDEN, "forbidden", "Forbidden", "your role does not allow this action"));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ProblemDetail> illegalArgument(IllegalArgumentException e) {
        return Problems.response(
                Problems.of(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", e.getMessage()));
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e, HttpServletRequest request) {
        if (StorageUnavailable.causedBy(e)) {
            log.warn("Storage unavailable on {} {}: {}", request.getMethod(), request.getRequestURI(), e.toString());
            return StorageUnavailable.response();
        }
        String incident = UUID.randomUUID().toString();
        log.error("Unexpected error {} on {} {}", incident, request.getMethod(), request.getRequestURI(), e);
        ProblemDetail pd = Problems.of(
                HttpStatus.INTERNAL_SERVER_ERROR,
                "internal",
                "Internal error",
                "the request failed unexpectedly; incident " + incident + " is in the server log");
        pd.setProperty("incident", incident);
        return Problems.response(pd);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(
            HttpMessageNotReadableException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String field = null;
        String detail = "the request body is not valid JSON";
        if (ex.getMostSpecificCause() instanceof UnrecognizedPropertyException unknown) {
            return unknownField(unknown, status);
        }
        if (ex.getMostSpecificCause() instanceof JacksonException je) {
            field = pathOf(je);
            String msg = je.getOriginalMessage();
            if (field != null) {
                detail = field + ": " + firstLine(msg);
            } else {
                detail = "malformed JSON: " + firstLine(msg);
            }
        } else if (ex.getMessage() != null && ex.getMessage().startsWith("Required request body is missing")) {
            detail = "a JSON request body is required";
        }
        ProblemDetail pd = Problems.of(status, "malformed-body", "Malformed request body", detail);
        if (field != null) {
            pd.setProperty("field", field);
        }
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(pd);
    }

    /**
     * A field the request type does not have: named with its path, and the fields that exist at
     * that place listed, so a misspelt {@code editedArguments} says {@code arguments} is meant.
     */
    private static ResponseEntity<Object> unknownField(UnrecognizedPropertyException e, HttpStatusCode status) {
        String field = pathOf(e);
        if (field == null) {
            field = e.getPropertyName();
        }
        List<String> known = e.getKnownPropertyIds() == null
                ? List.of()
                : e.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList();
        String detail = "unknown field '" + field + "'"
                + (known.isEmpty() ? "" : "; the fields here are " + String.join(", ", known));
        ProblemDetail pd = Problems.of(status, "unknown-field", "Unknown request field", detail);
        pd.setProperty("field", field);
        pd.setProperty("knownFields", known);
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(pd);
    }

    @Override
    protected ResponseEntity<Object> handleMethodArgumentNotValid(
            MethodArgumentNotValidException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<Map<String, String>> errors = ex.getBindingResult().getFieldErrors().stream()
                .map(fe -> Map.of(
                        "field",
                        fe.getField(),
                        "message",
                        fe.getDefaultMessage() == null ? "invalid" : fe.getDefaultMessage()))
                .toList();
        String detail = errors.stream()
                .map(m -> m.get("field") + ": " + m.get("message"))
                .reduce((a, b) -> a + "; " + b)
                .orElse("the request is invalid");
        ProblemDetail pd = Problems.of(status, "invalid-field", "Invalid request field", detail);
        pd.setProperty("errors", errors);
        if (!errors.isEmpty()) {
            pd.setProperty("field", errors.getFirst().get("field"));
        }
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(pd);
    }

    @Override
    protected ResponseEntity<Object> handleHandlerMethodValidationException(
            HandlerMethodValidationException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        List<String> messages = ex.getParameterValidationResults().stream()
                .flatMap(r -> r.getResolvableErrors().stream()
                        .map(err -> r.getMethodParameter().getParameterName() + ": " + err.getDefaultMessage()))
                .toList();
        ProblemDetail pd =
                Problems.of(status, "invalid-parameter", "Invalid request parameter", String.join("; ", messages));
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(pd);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMediaTypeNotAcceptable(
            HttpMediaTypeNotAcceptableException ex, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String accept = request.getHeader(HttpHeaders.ACCEPT);
        ProblemDetail pd = Problems.of(
                status,
                "not-acceptable",
                "Not Acceptable",
                "Accept: '" + accept + "' allows none of the media types this endpoint answers with "
                        + ex.getSupportedMediaTypes());
        pd.setProperty("header", HttpHeaders.ACCEPT);
        return handleExceptionInternal(ex, pd, headers, status, request);
    }

    @Override
    protected ResponseEntity<Object> handleExceptionInternal(
            Exception ex, Object body, HttpHeaders headers, HttpStatusCode statusCode, WebRequest request) {
        ResponseEntity<Object> response = super.handleExceptionInternal(ex, body, headers, statusCode, request);
        if (response == null || !(response.getBody() instanceof ProblemDetail pd)) {
            return response;
        }
        // Spring 7 leaves the type null (not about:blank) on its own problems, e.g. the 404 of an
        // unknown path: dereferencing it failed the handler and logged a stack trace per 404.
        if (pd.getType() == null || pd.getType().toString().equals("about:blank")) {
            pd.setType(Problems.type(slug(statusCode)));
        }
        // Set, not negotiated: the client's Accept (text/html, or one that does not parse) must not
        // turn an error into an empty body.
        HttpHeaders out = new HttpHeaders();
        out.putAll(response.getHeaders());
        out.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return new ResponseEntity<>(pd, out, response.getStatusCode());
    }

    private static String slug(HttpStatusCode status) {
        HttpStatus s = HttpStatus.resolve(status.value());
        return s == null
                ? "http-" + status.value()
                : s.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    private static String pathOf(JacksonException e) {
        StringBuilder sb = new StringBuilder();
        for (JacksonException.Reference ref : e.getPath()) {
            if (ref.getPropertyName() != null) {
                if (!sb.isEmpty()) {
                    sb.append('.');
                }
                sb.append(ref.getPropertyName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() > 300 ? line.substring(0, 300) : line;
    }
}
