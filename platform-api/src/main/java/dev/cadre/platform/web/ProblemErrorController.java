package dev.cadre.platform.web;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Errors raised outside Spring MVC (servlet container, filters) also answer with problem
 * details, never Boot's default error map or a container page.
 */
@RestController
class ProblemErrorController implements ErrorController {

    @RequestMapping(
            value = "/error",
            produces = {MediaType.APPLICATION_PROBLEM_JSON_VALUE, MediaType.APPLICATION_JSON_VALUE, MediaType.ALL_VALUE
            })
    ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        if (request.getAttribute(RequestDispatcher.ERROR_EXCEPTION) instanceof Throwable e
                && StorageUnavailable.causedBy(e)) {
            return StorageUnavailable.response(); // e.g. the API-key lookup of the security filter
        }
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer i && HttpStatus.resolve(i) != null
                ? HttpStatus.valueOf(i)
                : HttpStatus.INTERNAL_SERVER_ERROR;
        String detail = status.is5xxServerError() ? "the request failed unexpectedly" : detail(status, request);
        String slug = status.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(Problems.of(status, slug, status.getReasonPhrase(), detail));
    }

    /** What the container or filter said was wrong, else what the status means for this request. */
    private static String detail(HttpStatus status, HttpServletRequest request) {
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (request.getAttribute(RequestDispatcher.ERROR_MESSAGE) instanceof String message && !message.isBlank()) {
            return message + " (" + uri + ")";
        }
        if (request.getAttribute(RequestDispatcher.ERROR_EXCEPTION) instanceof Throwable t && t.getMessage() != null) {
            return t.getMessage();
        }
        return switch (status) {
            case METHOD_NOT_ALLOWED -> request.getMethod() + " is not allowed on " + uri;
            case UNSUPPORTED_MEDIA_TYPE -> "Content-Type '" + request.getContentType() + "' is not supported by " + uri;
            case NOT_FOUND -> "nothing at " + uri;
            default -> status.getReasonPhrase() + " for " + request.getMethod() + " " + uri;
        };
    }
}
