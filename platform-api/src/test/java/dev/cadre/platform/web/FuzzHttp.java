package dev.cadre.platform.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Sends fuzzed requests over real HTTP: through {@link HttpClient} when it accepts the request, and
 * over a plain socket when it does not (control characters or raw bytes in the request line or a
 * header, which a well-behaved client refuses to send but an attacker does not). Event streams are
 * read up to their first event, then dropped.
 */
final class FuzzHttp implements AutoCloseable {

    /**
     * What a fuzzed request looks like on the wire. {@code path} includes the query, already encoded;
     * {@code memoryTarget} is the memory entry ({@code namespace/key}) a memory write aims at.
     */
    record Request(
            String family,
            String mutation,
            String method,
            String path,
            Map<String, String> headers,
            byte @Nullable [] body,
            boolean raw,
            boolean chunked,
            @Nullable String memoryTarget) {}

    /** A response, headers keyed in lower case, body decoded as UTF-8 (at most {@link #MAX_BODY} bytes). */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.getOrDefault(name.toLowerCase(Locale.ROOT), "");
        }

        String contentType() {
            return header("content-type").toLowerCase(Locale.ROOT);
        }
    }

    static final int MAX_BODY = 256 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Duration A2A_STREAM_WAIT = Duration.ofSeconds(5);
    private static final Duration STREAM_WAIT = Duration.ofMillis(50);

    private final int port;
    private final HttpClient client;
    private final ExecutorService readers = Executors.newVirtualThreadPerTaskExecutor();

    FuzzHttp(int port) {
        this.port = port;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    Response send(Request r) throws IOException, InterruptedException {
        if (!r.raw()) {
            HttpRequest built = build(r);
            if (built != null) {
                // A2A streams must deliver their first event (the task or the error); other
                // streams only have to open.
                try {
                    return viaClient(built, r.path().startsWith("/a2a") ? A2A_STREAM_WAIT : STREAM_WAIT);
                } catch (IOException connectionDropped) {
                    // A refusal over the header limit closes the connection while HttpClient may
                    // still be streaming a chunked body; ask once more over a plain socket.
                }
            }
        }
        return viaSocket(r);
    }

    /** The request for {@link HttpClient}, or null when it refuses to send it as given. */
    private @Nullable HttpRequest build(Request r) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + r.path()))
                    .timeout(TIMEOUT);
            r.headers().forEach(b::header);
            byte[] body = r.body();
            b.method(
                    r.method(),
                    body == null
                            ? HttpRequest.BodyPublishers.noBody()
                            : r.chunked()
                                    // unknown length: sent chunked, no Content-Length to refuse up front
                                    ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
                                    : HttpRequest.BodyPublishers.ofByteArray(body));
            return b.build();
        } catch (IllegalArgumentException refused) {
            return null;
        }
    }

    private Response viaClient(HttpRequest request, Duration streamWait) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        Map<String, String> headers = new LinkedHashMap<>();
        response.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), String.join(", ", v)));
        boolean stream = headers.getOrDefault("content-type", "").contains("event-stream");
        byte[] body = read(response.body(), stream ? streamWait : null);
        return new Response(response.statusCode(), headers, new String(body, StandardCharsets.UTF_8));
    }

    /** The whole body, or for an event stream what arrived until its first event (or a few seconds). */
    private byte[] read(InputStream in, @Nullable Duration streamWait) throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Future<?> reading = readers.submit(() -> {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0 && out.size() < MAX_BODY) {
                synchronized (out) {
                    out.write(buf, 0, n);
                }
                if (streamWait != null && firstEventComplete(out)) {
                    break;
                }
            }
            return null;
        });
        try {
            reading.get((streamWait != null ? streamWait : TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (streamWait == null) {
                throw new IOException("no complete response body within " + TIMEOUT);
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } finally {
            in.close();
            reading.cancel(true);
        }
        synchronized (out) {
            return out.toByteArray();
        }
    }

    private static boolean firstEventComplete(ByteArrayOutputStream out) {
        String s;
        synchronized (out) {
            s = out.toString(StandardCharsets.UTF_8);
        }
        int data = s.indexOf("data:");
        return data >= 0 && s.indexOf("\n\n", data) > 0;
    }

    /**
     * HTTP/1.0 over a socket, so the body runs to the end of the connection and needs no
     * de-chunking. Header values are sent as UTF-8 bytes, whatever they contain.
     */
    private Response viaSocket(Request r) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout((int) TIMEOUT.toMillis());
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes((r.method() + " " + r.path() + " HTTP/1.0\r\n").getBytes(StandardCharsets.UTF_8));
            head.writeBytes(("Host: 127.0.0.1:" + port + "\r\n").getBytes(StandardCharsets.UTF_8));
            r.headers().forEach((k, v) -> head.writeBytes((k + ": " + v + "\r\n").getBytes(StandardCharsets.UTF_8)));
            if (r.body() != null) {
                head.writeBytes(("Content-Length: " + r.body().length + "\r\n").getBytes(StandardCharsets.UTF_8));
            }
            head.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
            IOException writeFailed = null;
            try {
                OutputStream out = socket.getOutputStream();
                out.write(head.toByteArray());
                if (r.body() != null) {
                    out.write(r.body());
                }
                out.flush();
            } catch (IOException e) {
                // A server may refuse a request before it has all of it (a header over its limit)
                // and close the connection, so the rest of the write fails (broken pipe, reset);
                // its answer is already on the way and is what counts. Only a server that wrote
                // nothing has not answered.
                writeFailed = e;
            }
            byte[] answer;
            try {
                answer = readUntilDone(socket, r.path().startsWith("/a2a"));
            } catch (IOException readFailed) {
                if (writeFailed != null) {
                    readFailed.addSuppressed(writeFailed);
                }
                throw readFailed;
            }
            if (writeFailed != null && answer.length == 0) {
                throw new IOException(
                        "no answer: the write failed (" + writeFailed + ") and the server sent nothing before closing",
                        writeFailed);
            }
            return parse(answer);
        }
    }

    /**
     * To the end of the connection, or for an event stream (which never ends, and whose heartbeats
     * would keep resetting a read timeout) until its head — for A2A its first event — has arrived;
     * never past the deadline.
     */
    private static byte[] readUntilDone(Socket socket, boolean firstEvent) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (out.size() < MAX_BODY) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) {
                break;
            }
            socket.setSoTimeout((int) Math.max(1, left));
            int n;
            try {
                n = in.read(buf);
            } catch (java.net.SocketTimeoutException e) {
                break;
            } catch (IOException reset) {
                // A server that closes on a request it did not read in full resets the connection
                // after its answer; what arrived before the reset is the answer.
                if (out.size() == 0) {
                    throw reset;
                }
                break;
            }
            if (n < 0) {
                break;
            }
            out.write(buf, 0, n);
            String head = out.toString(StandardCharsets.ISO_8859_1);
            int end = head.indexOf("\r\n\r\n");
            if (end > 0
                    && head.substring(0, end).toLowerCase(Locale.ROOT).contains("text/event-stream")
                    && (!firstEvent || firstEventComplete(out))) {
                break;
            }
        }
        return out.toByteArray();
    }

    private static Response parse(byte[] all) throws IOException {
        String text = new String(all, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            throw new IOException("no HTTP response head in " + all.length + " bytes: "
                    + text.substring(0, Math.min(200, text.length())));
        }
        String[] lines = text.substring(0, end).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.merge(
                        lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim(),
                        (a, b) -> a + ", " + b);
            }
        }
        String body = new String(all, end + 4, all.length - end - 4, StandardCharsets.UTF_8);
        return new Response(Integer.parseInt(statusLine[1]), headers, body);
    }

    @Override
    public void close() {
        readers.shutdownNow();
        client.close();
    }
}
