package dev.cadre.platform.tools;

import static dev.cadre.platform.tools.ToolTestSupport.JSON;
import static dev.cadre.platform.tools.ToolTestSupport.args;
import static dev.cadre.platform.tools.ToolTestSupport.ctx;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.cadre.agent.tool.Risk;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Against a local webhook: generic JSON and Slack bodies, one alert per incident per window. */
class NotifyToolTest {

    HttpServer server;
    final List<String> bodies = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", x -> {
            bodies.add(x.getRequestURI().getPath() + " "
                    + new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            x.sendResponseHeaders(x.getRequestURI().getPath().equals("/broken") ? 500 : 200, -1);
            x.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private NotifyTool tool(String path, String format, IncidentService incidents) {
        URI url = path == null
                ? null
                : URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
        var config = new OpsToolsProperties.Notify(url, format, null, Duration.ofSeconds(5));
        return new NotifyTool(
                new Notifier(
                        config,
                        HttpClient.newHttpClient(),
                        JSON,
                        Clock.systemUTC(),
                        incidents,
                        dev.cadre.platform.web.SecretRedactor.standard()),
                incidents,
                JSON);
    }

    @Test
    void genericJson_andOneAlertPerIncidentPerWindow() throws Exception {
        IncidentService incidents = ToolTestSupport.incidents();
        String id = incidents
                .open(
                        new IncidentService.OpenRequest("disk@db-1", "disk full", "high", "t", Map.of(), null),
                        Writer.apiClient("t"),
                        "run-1")
                .incident()
                .id();
        NotifyTool notify = tool("/hook", "json", incidents);
        assertThat(notify.risk()).isEqualTo(Risk.SUGGEST);
        JsonNode first = JSON.readTree(notify.execute(
                args("{\"title\":\"Disk\",\"text\":\"db-1 at 97%\",\"severity\":\"high\"}"), ctx("run-1", "c1")));
        assertThat(first.get("sent").asBoolean()).isTrue();
        assertThat(first.get("incident").asString()).isEqualTo(id);
        JsonNode second =
                JSON.readTree(notify.execute(args("{\"title\":\"Disk\",\"text\":\"again\"}"), ctx("run-1", "c2")));
        assertThat(second.get("sent").asBoolean()).isFalse();
        assertThat(second.get("reason").asString()).contains("already notified");
        assertThat(bodies).hasSize(1);
        JsonNode body = JSON.readTree(bodies.getFirst().substring("/hook ".length()));
        assertThat(body.get("title").asString()).isEqualTo("Disk");
        assertThat(body.get("incident").asString()).isEqualTo(id);
        assertThat(body.get("severity").asString()).isEqualTo("high");
    }

    @Test
    void slackFormat_postsText_withoutIncidentEveryCallIsSent_andNoWebhookIsNotAFailure() throws Exception {
        IncidentService incidents = ToolTestSupport.incidents();
        NotifyTool slack = tool("/slack", "slack", incidents);
        slack.execute(args("{\"title\":\"Deploy\",\"text\":\"done\",\"severity\":\"critical\"}"), ctx("r", "c1"));
        slack.execute(args("{\"title\":\"Deploy\",\"text\":\"done again\"}"), ctx("r", "c2"));
        assertThat(bodies).hasSize(2);
        JsonNode body = JSON.readTree(bodies.getFirst().substring("/slack ".length()));
        assertThat(body.get("text").asString()).isEqualTo(":red_circle: *Deploy*\ndone");
        assertThat(body.size()).isEqualTo(1);

        JsonNode none = JSON.readTree(
                tool(null, "json", incidents).execute(args("{\"title\":\"x\",\"text\":\"y\"}"), ctx("r", "c3")));
        assertThat(none.get("sent").asBoolean()).isFalse();
        assertThat(none.get("detail").asString()).contains("cadre.tools.notify.webhook-url");
    }
}
