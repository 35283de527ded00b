package dev.cadre.platform.web;

import java.net.URI;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** Builds problem details with Cadre's type URIs ({@code urn:cadre:problem:<slug>}). */
public final class Problems {

    private Problems() {}

    public static URI type(String slug) {
        return URI.create("urn:cadre:problem:" + slug);
    }

    /**
     * The problem as a response whose Content-Type is set rather than negotiated, so an Accept
     * header that does not ask for JSON (or does not parse) cannot leave the error without a body.
     */
    public static ResponseEntity<ProblemDetail> response(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }

    public static ProblemDetail of(HttpStatusCode status, String slug, String title, String detail) {
        ProblemDetail pd = ProblemDetail.forStatusAndDetail(status, detail);
        pd.setType(type(slug));
        pd.setTitle(title);
        return pd;
    }
}
