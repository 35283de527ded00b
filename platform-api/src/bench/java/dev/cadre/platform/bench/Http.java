package dev.cadre.platform.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The benchmark's HTTP client: the JDK HttpClient over HTTP/1.1 keep-alive connections, the API key
 * on every request, as an integrator's script would call the platform.
 */
final class Http {

    static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient client;
    private final String base;
    private final String key;

    Http(String base, String key) {
        this.base = base;
        this.key = key;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    record Response(int status, HttpResponse<String> raw) {
        String body() {
            return raw.body();
        }

        JsonNode json() {
            return JSON.readTree(raw.body());
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    Response get(String path) throws IOException, InterruptedException {
        return send(request(path).GET().build());
    }

    Response post(String path, String json) throws IOException, InterruptedException {
        return send(request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    Response put(String path, String json, String header, String value) throws IOException, InterruptedException {
        return send(request(path)
                .header("Content-Type", "application/json")
                .header(header, value)
                .PUT(HttpRequest.BodyPublishers.ofString(json))
                .build());
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + key);
    }

    Response send(HttpRequest request) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
        return new Response(r.statusCode(), r);
    }
}
