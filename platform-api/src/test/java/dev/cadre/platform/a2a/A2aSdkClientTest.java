package dev.cadre.platform.a2a;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import dev.cadre.platform.support.PlatformTest;
import io.a2a.client.Client;
import io.a2a.client.ClientEvent;
import io.a2a.client.TaskEvent;
import io.a2a.client.TaskUpdateEvent;
import io.a2a.client.config.ClientConfig;
import io.a2a.client.http.A2ACardResolver;
import io.a2a.client.http.JdkA2AHttpClient;
import io.a2a.client.transport.jsonrpc.JSONRPCTransport;
import io.a2a.client.transport.jsonrpc.JSONRPCTransportConfig;
import io.a2a.client.transport.spi.interceptors.ClientCallContext;
import io.a2a.spec.A2AClientException;
import io.a2a.spec.APIKeySecurityScheme;
import io.a2a.spec.AgentCard;
import io.a2a.spec.AgentSkill;
import io.a2a.spec.HTTPAuthSecurityScheme;
import io.a2a.spec.JSONRPCError;
import io.a2a.spec.Message;
import io.a2a.spec.Task;
import io.a2a.spec.TaskIdParams;
import io.a2a.spec.TaskQueryParams;
import io.a2a.spec.TaskState;
import io.a2a.spec.TaskStatusUpdateEvent;
import io.a2a.spec.TextPart;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Cadre as an A2A server, driven by the A2A Java SDK 0.3 client exactly as a third-party agent would:
 * resolve the public card, then send, stream, get, cancel and resubscribe over JSON-RPC with an API key.
 */
@PlatformTest
class A2aSdkClientTest {

    @LocalServerPort
    int port;

    String base;
    ClientCallContext auth;

    @BeforeEach
    void setUp() {
        base = "http://127.0.0.1:" + port;
        auth = new ClientCallContext(Map.of(), Map.of("Authorization", "Bearer " + Api.ADMIN_KEY));
    }

    private AgentCard card() throws Exception {
        return new A2ACardResolver(new JdkA2AHttpClient(), base).getAgentCard();
    }

    private Client client(boolean streaming, boolean polling) throws Exception {
        return Client.builder(card())
                .clientConfig(new ClientConfig.Builder()
                        .setStreaming(streaming)
                        .setPolling(polling)
                        .build())
                .withTransport(JSONRPCTransport.class, new JSONRPCTransportConfig())
                .build();
    }

    private static Message message(String agent, String text) {
        return new Message.Builder()
                .role(Message.Role.USER)
                .parts(List.of(new TextPart(text)))
                .messageId(UUID.randomUUID().toString())
                .metadata(Map.of("agent", agent))
                .build();
    }

    /** Sends without streaming; the SDK hands the answer to the consumer before returning. */
    private Task send(Client client, Message message) throws Exception {
        CompletableFuture<Task> answer = new CompletableFuture<>();
        BiConsumer<ClientEvent, AgentCard> consumer = (event, card) -> {
            if (event instanceof TaskEvent t) {
                answer.complete(t.getTask());
            }
        };
        client.sendMessage(message, List.of(consumer), e -> answer.completeExceptionally(e), auth);
        return answer.get(30, TimeUnit.SECONDS);
    }

    private static String text(Message m) {
        return m.getParts().stream()
                .filter(TextPart.class::isInstance)
                .map(p -> ((TextPart) p).getText())
                .reduce("", String::concat);
    }

    @Test
    void cardResolver_parsesThePublicCard_withASkillPerAgentAndBothKeySchemes() throws Exception {
        AgentCard card = card();
        assertThat(card.name()).isEqualTo("Cadre");
        assertThat(card.url()).isEqualTo(base + "/a2a");
        assertThat(card.preferredTransport()).isEqualTo("JSONRPC");
        assertThat(card.capabilities().streaming()).isTrue();
        assertThat(card.capabilities().pushNotifications()).isFalse();
        assertThat(card.supportsAuthenticatedExtendedCard()).isFalse();
        assertThat(card.defaultInputModes()).containsExactly("text/plain");
        assertThat(card.skills()).extracting(AgentSkill::id).contains("ops-orchestrator", "fixer", "slow");
        assertThat(card.skills().getFirst().id())
                .as("the default agent comes first")
                .isEqualTo("ops-orchestrator");
        assertThat(card.securitySchemes().get("bearer"))
                .isInstanceOfSatisfying(
                        HTTPAuthSecurityScheme.class,
                        s -> assertThat(s.getScheme()).isEqualToIgnoringCase("bearer"));
        assertThat(card.securitySchemes().get("apiKey"))
                .isInstanceOfSatisfying(
                        APIKeySecurityScheme.class, s -> assertThat(s.getName()).isEqualTo("X-API-Key"));
        assertThat(card.security()).hasSize(2);
    }

    @Test
    void blockingSend_toTheOrchestrator_answersWithTheCompletedTaskAndItsAnswer() throws Exception {
        Task task = send(client(false, false), message("ops-orchestrator", "check host web-1 over A2A"));
        assertThat(task.getStatus().state()).isEqualTo(TaskState.COMPLETED);
        assertThat(task.getId()).startsWith("run_");
        assertThat(text(task.getStatus().message())).contains("Host check finished");
        assertThat(task.getArtifacts()).hasSize(1);
        assertThat(task.getArtifacts().getFirst().parts().getFirst())
                .isInstanceOfSatisfying(
                        TextPart.class, p -> assertThat(p.getText()).contains("Host check finished"));

        // The task is the run: the REST API shows the same thing.
        var run =
                new Api(port).get("/api/v1/runs/" + task.getId(), Api.ADMIN_KEY).json();
        assertThat(run.get("status").asString()).isEqualTo("completed");
        assertThat(run.get("agent").asString()).isEqualTo("ops-orchestrator");
    }

    @Test
    void streamingSend_deliversStatusUpdatesUpToTheFinalOne() throws Exception {
        List<ClientEvent> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        BiConsumer<ClientEvent, AgentCard> consumer = (event, card) -> events.add(event);
        Consumer<Throwable> errors = e -> {
            if (e == null) {
                ended.complete(null);
            } else {
                ended.completeExceptionally(e);
            }
        };
        client(true, false)
                .sendMessage(message("ops-orchestrator", "stream a host check"), List.of(consumer), errors, auth);
        Await.until("the stream's final event", () -> events.stream().anyMatch(A2aSdkClientTest::isFinal), f -> f);

        assertThat(events.getFirst()).isInstanceOf(TaskEvent.class);
        List<TaskStatusUpdateEvent> updates = events.stream()
                .filter(TaskUpdateEvent.class::isInstance)
                .map(e -> ((TaskUpdateEvent) e).getUpdateEvent())
                .filter(TaskStatusUpdateEvent.class::isInstance)
                .map(TaskStatusUpdateEvent.class::cast)
                .toList();
        assertThat(updates).extracting(u -> u.getStatus().state()).contains(TaskState.WORKING);
        assertThat(updates.stream().map(u -> text(u.getStatus().message())))
                .anyMatch(t -> t.contains("Delegated to 'cpu-inspector'"));
        TaskStatusUpdateEvent last = updates.getLast();
        assertThat(last.isFinal()).isTrue();
        assertThat(last.getStatus().state()).isEqualTo(TaskState.COMPLETED);
        assertThat(updates.subList(0, updates.size() - 1)).noneMatch(TaskStatusUpdateEvent::isFinal);
        // The client's view of the task, assembled from the events, carries the answer.
        Task assembled = ((TaskUpdateEvent) events.getLast()).getTask();
        assertThat(assembled.getArtifacts()).isNotEmpty();
    }

    private static boolean isFinal(ClientEvent e) {
        return e instanceof TaskUpdateEvent u && u.getUpdateEvent() instanceof TaskStatusUpdateEvent s && s.isFinal();
    }

    @Test
    void getAndCancel_ofASlowTask() throws Exception {
        Client client = client(false, true); // polling: the send returns at once
        Task submitted = send(client, message("slow", "think long"));
        assertThat(submitted.getStatus().state()).isIn(TaskState.SUBMITTED, TaskState.WORKING);

        Task working = Await.until(
                "the slow task to work",
                () -> get(client, submitted.getId()),
                t -> t.getStatus().state() == TaskState.WORKING);
        assertThat(working.getContextId()).isNotBlank();
        assertThat(working.getHistory()).isEmpty(); // the SDK asks for historyLength 0

        Task canceled = client.cancelTask(new TaskIdParams(submitted.getId()), auth);
        assertThat(canceled.getStatus().state()).isEqualTo(TaskState.CANCELED);
        assertThat(get(client, submitted.getId()).getStatus().state()).isEqualTo(TaskState.CANCELED);

        // A second cancel: the task is no longer cancelable (-32002).
        assertThatThrownBy(() -> client.cancelTask(new TaskIdParams(submitted.getId()), auth))
                .isInstanceOf(A2AClientException.class)
                .satisfies(
                        e -> assertThat(((JSONRPCError) e.getCause()).getCode()).isEqualTo(-32002));
    }

    private Task get(Client client, String id) {
        try {
            return client.getTask(new TaskQueryParams(id), auth);
        } catch (A2AClientException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void resubscribe_followsARunningTaskToItsCancellation() throws Exception {
        Client polling = client(false, true);
        Task submitted = send(polling, message("slow", "think long, then be canceled"));
        Await.until(
                "the slow task to work",
                () -> get(polling, submitted.getId()),
                t -> t.getStatus().state() == TaskState.WORKING);

        List<ClientEvent> events = new CopyOnWriteArrayList<>();
        client(true, false)
                .resubscribe(new TaskIdParams(submitted.getId()), List.of((e, c) -> events.add(e)), e -> {}, auth);
        Await.until("the resubscription's first event", () -> events.size(), n -> n >= 1);
        polling.cancelTask(new TaskIdParams(submitted.getId()), auth);

        Await.until("the final canceled event", () -> events.stream().anyMatch(A2aSdkClientTest::isFinal), f -> f);
        TaskStatusUpdateEvent last = (TaskStatusUpdateEvent) ((TaskUpdateEvent) events.getLast()).getUpdateEvent();
        assertThat(last.getStatus().state()).isEqualTo(TaskState.CANCELED);
    }

    @Test
    void fixer_waitsForAHuman_asInputRequired() throws Exception {
        Client client = client(false, false);
        Task task = send(client, message("fixer", "api is stuck (a2a)"));
        assertThat(task.getStatus().state()).isEqualTo(TaskState.INPUT_REQUIRED);
        assertThat(text(task.getStatus().message())).contains("approve").contains("/api/v1/approvals/");
        assertThat(task.getMetadata()).containsKey("pendingApprovals");

        client.cancelTask(new TaskIdParams(task.getId()), auth);
    }

    @Test
    void unknownTask_isTaskNotFound() throws Exception {
        Client client = client(false, false);
        assertThatThrownBy(() -> client.getTask(new TaskQueryParams("run_does_not_exist"), auth))
                .isInstanceOf(A2AClientException.class)
                .satisfies(e -> assertThat(e.getCause())
                        .isInstanceOfSatisfying(
                                JSONRPCError.class,
                                err -> assertThat(err.getCode()).isEqualTo(-32001)));
    }

    @Test
    void withoutAnApiKey_theClientIsRefused() throws Exception {
        Client client = client(false, false);
        ClientCallContext anonymous = new ClientCallContext(Map.of(), Map.of());
        assertThatThrownBy(() -> client.getTask(new TaskQueryParams("run_x"), anonymous))
                .isInstanceOf(A2AClientException.class)
                // The SDK reports 401 as "Authentication failed" and 403 as "Authorization failed".
                .hasMessageMatching("(?s).*(Authentication|Authorization) failed.*");
    }
}
