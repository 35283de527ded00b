package dev.cadre.platform.web;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.Pipeline;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Requests Tomcat refuses before any filter or servlet sees them — an encoded slash or invalid
 * UTF-8 in the path, a control character in a header, headers over the size limit — are answered
 * by the host's error report valve, which writes an HTML page. This replaces that valve with one
 * that writes problem details, so no error of the API is HTML. (Errors that reach the
 * application are handled by {@link ApiExceptionHandler} and {@link ProblemErrorController}.)
 */
@Component
class ContainerProblems implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {

    @Override
    public void customize(ConfigurableTomcatWebServerFactory factory) {
        factory.addContextCustomizers(context -> {
            if (!(context.getParent() instanceof StandardHost host)) {
                return;
            }
            // Boot's customizer added a plain ErrorReportValve (stack traces off); replace it.
            Pipeline pipeline = host.getPipeline();
            for (Valve valve : pipeline.getValves()) {
                if (valve instanceof ErrorReportValve) {
                    pipeline.removeValve(valve);
                }
            }
            host.setErrorReportValveClass(ProblemReportValve.class.getName());
            pipeline.addValve(new ProblemReportValve());
        });
    }

    /** After Boot's own Tomcat customizer, whose valve this one replaces. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /** Writes what Tomcat's own error report would say as an RFC 9457 problem. */
    public static class ProblemReportValve extends ErrorReportValve {

        private static final JsonMapper JSON = JsonMapper.builder().build();

        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int code = response.getStatus();
            // As Tomcat's valve: nothing for non-errors, for bodies already written or errors already reported.
            if (code < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            AtomicBoolean ioAllowed = new AtomicBoolean(false);
            response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
            if (!ioAllowed.get()) {
                return;
            }
            HttpStatus status = HttpStatus.resolve(code);
            String reason = response.getMessage();
            ObjectNode problem = JSON.createObjectNode();
            problem.put(
                    "type",
                    Problems.type(
                                    status == null
                                            ? "http-" + code
                                            : status.name()
                                                    .toLowerCase(Locale.ROOT)
                                                    .replace('_', '-'))
                            .toString());
            problem.put("title", status == null ? "HTTP " + code : status.getReasonPhrase());
            problem.put("status", code);
            problem.put(
                    "detail",
                    "the server refused the request before it reached Cadre: "
                            + (reason != null && !reason.isBlank() ? reason : defaultReason(code)));
            try {
                response.setContentType("application/problem+json");
                response.setCharacterEncoding("UTF-8");
                PrintWriter writer = response.getReporter();
                if (writer != null) {
                    writer.write(JSON.writeValueAsString(problem));
                    response.finishResponse();
                }
            } catch (IOException | IllegalStateException e) {
                // The client is gone or the response is already committed: nothing left to tell it.
            }
        }

        private static String defaultReason(int code) {
            return switch (code) {
                case 400 ->
                    "the request line, a header or the path's encoding is malformed"
                            + " (e.g. an encoded '/' or invalid UTF-8 in the path, a control character in a header)";
                case 413 -> "the request is too large";
                case 414 -> "the request target is too long";
                case 431 -> "the request headers are too large";
                default -> "HTTP " + code;
            };
        }
    }
}
