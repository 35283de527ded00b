package dev.cadre.platform.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies above {@code cadre.http.max-body-bytes} with 413 — by the declared
 * length up front, and a body of unknown length (chunked) by reading it here, at most one byte past
 * the limit, before any servlet sees it — so no client can make the platform buffer an unbounded
 * payload. Reading it here rather than counting as the servlet reads matters for servlets that
 * catch the read's failure themselves (the MCP SDK reads with {@code getReader()} and answers 400
 * to any {@code IOException}), which would otherwise never let a 413 through.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
class RequestSizeLimitFilter extends OncePerRequestFilter {

    private final long maxBytes;
    private final ProblemWriter problems;

    RequestSizeLimitFilter(@Value("${cadre.http.max-body-bytes:1048576}") long maxBytes, ProblemWriter problems) {
        this.maxBytes = maxBytes;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            reject(response);
            return;
        }
        if (declared < 0 && hasBody(request) && !isForm(request)) {
            byte[] body = request.getInputStream().readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
            if (body.length > maxBytes) {
                // The client is still sending: close the connection rather than read the rest.
                response.setHeader("Connection", "close");
                reject(response);
                return;
            }
            chain.doFilter(new BufferedRequest(request, body), response);
            return;
        }
        try {
            chain.doFilter(new LimitedRequest(request, maxBytes), response);
        } catch (BodyTooLargeException e) {
            reject(response);
        } catch (ServletException | RuntimeException e) {
            if (causedByTooLarge(e)) {
                reject(response);
            } else {
                throw e;
            }
        }
    }

    /** A body of unknown length: chunked transfer coding (HTTP/1.1) or a stream without a length (HTTP/2). */
    private static boolean hasBody(HttpServletRequest request) {
        String te = request.getHeader("Transfer-Encoding");
        return te != null || !("GET".equals(request.getMethod()) || "HEAD".equals(request.getMethod()));
    }

    // Tomcat parses a form's parameters from its own buffer (bounded by its max-http-form-post-size);
    // reading the body here would hide them.
    private static boolean isForm(HttpServletRequest request) {
        String type = request.getContentType();
        return type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded");
    }

    private void reject(HttpServletResponse response) throws IOException {
        problems.write(
                response,
                HttpStatus.CONTENT_TOO_LARGE,
                "body-too-large",
                "Request body too large",
                "the request body exceeds the limit of " + maxBytes + " bytes (cadre.http.max-body-bytes)");
    }

    private static boolean causedByTooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BodyTooLargeException) {
                return true;
            }
        }
        return false;
    }

    static final class BodyTooLargeException extends IOException {
        BodyTooLargeException() {
            super("request body too large");
        }
    }

    /** A request whose body (read whole, within the limit) is served from memory. */
    private static final class BufferedRequest extends HttpServletRequestWrapper {
        private final byte[] body;
        private ServletInputStream stream;
        private java.io.BufferedReader reader;

        BufferedRequest(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }

        @Override
        public ServletInputStream getInputStream() {
            if (reader != null) {
                throw new IllegalStateException("getReader() has already been called for this request");
            }
            if (stream == null) {
                java.io.ByteArrayInputStream in = new java.io.ByteArrayInputStream(body);
                stream = new ServletInputStream() {
                    @Override
                    public int read() {
                        return in.read();
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) {
                        return in.read(buf, off, len);
                    }

                    @Override
                    public boolean isFinished() {
                        return in.available() == 0;
                    }

                    @Override
                    public boolean isReady() {
                        return true;
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        try {
                            listener.onDataAvailable();
                            listener.onAllDataRead();
                        } catch (IOException e) {
                            listener.onError(e);
                        }
                    }
                };
            }
            return stream;
        }

        @Override
        public java.io.BufferedReader getReader() throws IOException {
            if (stream != null) {
                throw new IllegalStateException("getInputStream() has already been called for this request");
            }
            if (reader == null) {
                String encoding = getCharacterEncoding();
                java.nio.charset.Charset charset;
                try {
                    charset = encoding == null
                            ? java.nio.charset.StandardCharsets.UTF_8
                            : java.nio.charset.Charset.forName(encoding);
                } catch (IllegalArgumentException e) {
                    throw new java.io.UnsupportedEncodingException(encoding);
                }
                reader = new java.io.BufferedReader(
                        new java.io.InputStreamReader(new java.io.ByteArrayInputStream(body), charset));
            }
            return reader;
        }
    }

    private static final class LimitedRequest extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream stream;

        LimitedRequest(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                ServletInputStream in = super.getInputStream();
                stream = new ServletInputStream() {
                    private long count;

                    @Override
                    public int read() throws IOException {
                        int b = in.read();
                        if (b >= 0 && ++count > max) {
                            throw new BodyTooLargeException();
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) throws IOException {
                        int n = in.read(buf, off, len);
                        if (n > 0 && (count += n) > max) {
                            throw new BodyTooLargeException();
                        }
                        return n;
                    }

                    @Override
                    public boolean isFinished() {
                        return in.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return in.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        in.setReadListener(listener);
                    }
                };
            }
            return stream;
        }
    }
}
