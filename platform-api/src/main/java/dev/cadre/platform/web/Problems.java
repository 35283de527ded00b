package dev.cadre.platform.web;

import java.net.URI;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/** Builds problem details with Cadre's type URIs ({@code urn:cadre:problem:<slug>}). */
public final class Problems {

    private Problems() {}

    public static URI type(String slug) {
        return URI.create("urn:cadre:problem:" + slug);
    }

    public static ProblemDetail of(HttpStatusCode status, String slug, String title, String detail) {
        ProblemDetail pd = ProblemDetail.forStatusAndDetail(status, detail);
        pd.setType(type(slug));
        pd.setTitle(title);
        return pd;
    }
}
