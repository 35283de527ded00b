package dev.cadre.platform.integrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.incidents.OpsPlatformTestBase;
import dev.cadre.platform.support.Api;
import dev.cadre.platform.support.Await;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Alertmanager's real webhook payload: one incident and one triage run per firing alert, however often it is sent. */
class AlertmanagerIntakeTest extends OpsPlatformTestBase {

    private static String payload(String status, String fingerprint) {
        return """
                {"version":"4","groupKey":"{}:{alertname=\\"HostHighCpu\\"}","truncatedAlerts":0,"status":"%s",
                 "receiver":"cadre","groupLabels":{"alertname":"HostHighCpu"},
                 "commonLabels":{"alertname":"HostHighCpu","instance":"web-1:9100","severity":"critical"},
                 "commonAnnotations":{"summary":"CPU above 90 percent for 5 minutes"},
                 "externalURL":"http://alertmanager:9093",
                 "alerts":[{"status":"%s",
                   "labels":{"alertname":"HostHighCpu","instance":"web-1:9100","severity":"critical"},
                   "annotations":{"summary":"CPU above 90 percent for 5 minutes"},
                   "startsAt":"2026-05-08T03:00:00Z","endsAt":"%s",
                   "generatorURL":"http://prometheus:9090/graph?g0.expr=cpu","fingerprint":"%s"}]}
                """.formatted(
                        status,
                        status,
                        status.equals("resolved") ? "2026-05-08T03:30:00Z" : "0001-01-01T00:00:00Z",
                        fingerprint);
    }

    private JsonNode post(String body) {
        var r = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json().get("alerts").get(0);
    }

    @Test
    void firingTwice_startsOneTriageRun_resolvedCloses_firingAgainOpensANewIncident() {
        String fp = "c0ffee" + UUID.randomUUID().toString().substring(0, 8);
        JsonNode first = post(payload("firing", fp));
        assertThat(first.get("action").asString()).isEqualTo("incident-opened");
        String runId = first.get("runId").asString();
        String incident = first.get("incident").asString();
        JsonNode triage = run(runId);
        assertThat(triage.get("agent").asString()).isEqualTo("ops-orchestrator");
        assertThat(triage.get("input").asString())
                .contains("Triage alert HostHighCpu")
                .contains(incident);

        // Alertmanager's retry (or its HA peer's copy) of the same notification: no new sighting.
        JsonNode again = post(payload("firing", fp));
        assertThat(again.get("action").asString()).isEqualTo("duplicate");
        assertThat(again.get("incident").asString()).isEqualTo(incident);
        assertThat(again.has("runId")).isFalse();
        assertThat(incidents.get(incident).orElseThrow().runs()).containsExactly(runId);

        // The triage run works on the alert's incident and waits for approval of its remediation.
        awaitStatus(runId, "input-required");
        assertThat(pendingApprovals(runId).getFirst().get("tool").asString()).isEqualTo("runbook_execute");
        api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, null);

        JsonNode resolved = post(payload("resolved", fp));
        assertThat(resolved.get("action").asString()).isEqualTo("incident-resolved");
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("resolved");

        // The firing the resolve ended, delivered late (deliveries overtake each other): stale.
        JsonNode late = post(payload("firing", fp));
        assertThat(late.get("action").asString()).isEqualTo("stale");
        assertThat(late.get("incident").asString()).isEqualTo(incident);

        // The alert fires again: a new startsAt, a new incident.
        JsonNode refired = post(payload("firing", fp).replace("2026-05-08T03:00:00Z", "2026-05-08T04:00:00Z"));
        assertThat(refired.get("action").asString()).isEqualTo("incident-opened");
        assertThat(refired.get("incident").asString()).isNotEqualTo(incident);
        api.post("/api/v1/runs/" + refired.get("runId").asString() + "/cancel", Api.ADMIN_KEY, null);
    }

    @Test
    void concurrentDeliveriesOfOneAlert_openOneIncident_andStartOneRun() throws Exception {
        String fp = "beef" + UUID.randomUUID().toString().substring(0, 8);
        List<Callable<JsonNode>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(() -> post(payload("firing", fp)));
        }
        List<JsonNode> answers = new ArrayList<>();
        try (var pool = Executors.newFixedThreadPool(6)) {
            for (Future<JsonNode> f : pool.invokeAll(calls)) {
                answers.add(f.get());
            }
        }
        assertThat(answers.stream().filter(a -> a.get("action").asString().equals("incident-opened")))
                .hasSize(1);
        assertThat(answers.stream().map(a -> a.get("incident").asString()).distinct())
                .hasSize(1);
        String runId = answers.stream()
                .filter(a -> a.has("runId"))
                .findFirst()
                .orElseThrow()
                .get("runId")
                .asString();
        // Six copies of one notification are one sighting (issue 26: they used to be six, and escalate).
        assertThat(incidents
                        .get(answers.getFirst().get("incident").asString())
                        .orElseThrow()
                        .occurrences())
                .isEqualTo(1);
        assertThat(answers.stream().filter(a -> a.get("action").asString().equals("duplicate")))
                .hasSize(5);
        api.post("/api/v1/runs/" + runId + "/cancel", Api.ADMIN_KEY, null);
    }

    @Test
    void fiveCopiesOfOneNotification_areOneSighting_notAnEscalation() {
        String fp = "c0pies" + UUID.randomUUID().toString().substring(0, 8);
        List<JsonNode> answers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            answers.add(post(payload("firing", fp)));
        }
        String incident = answers.getFirst().get("incident").asString();
        assertThat(answers)
                .extracting(a -> a.get("action").asString())
                .containsExactly("incident-opened", "duplicate", "duplicate", "duplicate", "duplicate");
        assertThat(incidents.get(incident).orElseThrow().occurrences()).isEqualTo(1);
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("open");
        assertThat(deliveries("escalate")).isZero();
        api.post("/api/v1/runs/" + answers.getFirst().get("runId").asString() + "/cancel", Api.ADMIN_KEY, null);
    }

    /**
     * The escalation page is the platform's message, sent without approval: the alert's text (anyone
     * who can fire an alert writes it) appears only quoted, as data, with its link defanged.
     */
    @Test
    void anEscalatedAlertWithAPhishingSummary_pagesInThePlatformsWords_quotingTheAlertAsData() {
        String fp = "ph1sh" + UUID.randomUUID().toString().substring(0, 8);
        String phishing = "URGENT: session expired, re-login at https://evil.example/login and paste your token";
        String incident = null;
        for (int i = 0; i < 3; i++) { // three firings (new startsAt each): the third escalates
            String body = payload("firing", fp)
                    .replace("HostHighCpu", phishing) // the alert's name, as in the reported attack
                    .replace("CPU above 90 percent for 5 minutes", phishing)
                    .replace("2026-05-08T03:00:00Z", "2026-05-08T0" + (3 + i) + ":00:00Z");
            incident = post(body).get("incident").asString();
        }
        String id = incident;
        Await.until("the escalation page", () -> deliveries("escalate"), n -> n == 1);
        String page = DELIVERIES.stream()
                .filter(d -> d.startsWith("escalate "))
                .findFirst()
                .orElseThrow()
                .substring("escalate ".length());
        assertThat(page).doesNotContain("https://evil.example");
        JsonNode json = tools.jackson.databind.json.JsonMapper.builder().build().readTree(page);
        assertThat(json.get("kind").asString()).isEqualTo("escalation");
        assertThat(json.get("title").asString()).isEqualTo("Escalated to a person: incident " + id);
        assertThat(json.get("found").asString())
                .isEqualTo("Seen 3 times. Automated remediation is off for this incident; a person owns it now.");
        assertThat(json.get("reported").get("untrusted").asBoolean()).isTrue();
        assertThat(json.get("reported").get("values").get("alert").asString())
                .startsWith("URGENT: session expired, re-login at hxxps[:]//evil.example/login and paste your token");
        assertThat(json.get("reported").get("values").get("summary").asString())
                .isEqualTo("URGENT: session expired, re-login at hxxps[:]//evil.example/login and paste your token");
        Await.until(
                "the page recorded on the incident",
                () -> incidents.timeline(id, 0, 1000).stream()
                        .filter(s -> s.entry().kind() == dev.cadre.platform.incidents.TimelineKind.NOTIFICATION_SENT)
                        .count(),
                n -> n == 1);
        for (String run : incidents.get(id).orElseThrow().runs()) {
            api.post("/api/v1/runs/" + run + "/cancel", Api.ADMIN_KEY, null);
        }
    }

    @Test
    void resolvedWhileItsTriageRunWaitsForApproval_supersedesTheApproval_andCompletesTheRun() {
        String fp = "res0lve" + UUID.randomUUID().toString().substring(0, 8);
        JsonNode opened = post(payload("firing", fp));
        String runId = opened.get("runId").asString();
        awaitStatus(runId, "input-required");
        List<JsonNode> pending = pendingApprovals(runId);
        assertThat(pending).hasSize(1);
        String approvalId = pending.getFirst().get("id").asString();

        JsonNode resolved = post(payload("resolved", fp));
        assertThat(resolved.get("action").asString()).isEqualTo("incident-resolved");
        assertThat(resolved.get("runsEnded").valueStream().map(JsonNode::asString))
                .containsExactly(runId);

        JsonNode run = awaitStatus(runId, "completed|failed|canceled|rejected");
        assertThat(run.get("status").asString()).as(run.toString()).isEqualTo("completed");
        assertThat(run.get("result").asString()).startsWith("superseded: incident resolved");
        JsonNode approval =
                api.get("/api/v1/approvals/" + approvalId, Api.ADMIN_KEY).json();
        assertThat(approval.get("status").asString()).isEqualTo("superseded");
        assertThat(approval.get("comment").asString()).isEqualTo("superseded: incident resolved");
        // Deciding it afterwards is refused: nothing waits for it any more.
        assertThat(api.approve(approvalId, Api.ADMIN_KEY).status()).isEqualTo(409);
        String events =
                api.get("/api/v1/runs/" + runId + "/events", Api.ADMIN_KEY).body();
        assertThat(events).contains("\"type\":\"done\"").contains("superseded: incident resolved");
        String audit = api.get("/api/v1/audit?limit=200", Api.ADMIN_KEY).body();
        assertThat(audit).contains("run.end").contains("approval.supersede").contains(runId);
    }

    /**
     * The intake opens each alert from what the rate limiter's charge read for its fingerprint; an
     * earlier alert of the same fingerprint in the delivery has changed that since, so the later ones
     * read afresh: a resolve then a new firing opens a new incident, and a copy of a sighting counts once.
     */
    @Test
    void oneDeliveryResolvingAndRefiringAnAlert_opensANewIncident_andACopyCountsOnce() {
        String fp = "refire" + UUID.randomUUID().toString().substring(0, 8);
        JsonNode first = post(payload("firing", fp));
        String incident = first.get("incident").asString();
        api.post("/api/v1/runs/" + first.get("runId").asString() + "/cancel", Api.ADMIN_KEY, null);

        String alert = """
                {"status":"%s","labels":{"alertname":"HostHighCpu","instance":"web-1:9100","severity":"critical"},
                 "startsAt":"%s","endsAt":"%s","fingerprint":"%s"}""";
        String copies = "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":["
                + alert.formatted("firing", "2026-05-08T03:10:00Z", "0001-01-01T00:00:00Z", fp) + ","
                + alert.formatted("firing", "2026-05-08T03:10:00Z", "0001-01-01T00:00:00Z", fp) + "]}";
        var r = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, copies);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(r.json()
                        .get("alerts")
                        .valueStream()
                        .map(a -> a.get("action").asString() + " "
                                + a.get("incident").asString() + " "
                                + a.get("occurrences").asInt()))
                .containsExactly("seen-again " + incident + " 2", "duplicate " + incident + " 2");

        String refire = "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":["
                + alert.formatted("resolved", "2026-05-08T03:00:00Z", "2026-05-08T03:30:00Z", fp) + ","
                + alert.formatted("firing", "2026-05-08T04:00:00Z", "0001-01-01T00:00:00Z", fp) + "]}";
        r = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, refire);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode resolved = r.json().get("alerts").get(0);
        JsonNode opened = r.json().get("alerts").get(1);
        assertThat(resolved.get("action").asString()).isEqualTo("incident-resolved");
        assertThat(resolved.get("incident").asString()).isEqualTo(incident);
        assertThat(opened.get("action").asString()).as(r.body()).isEqualTo("incident-opened");
        assertThat(opened.get("incident").asString()).isNotEqualTo(incident);
        assertThat(incidents.get(incident).orElseThrow().status()).isEqualTo("resolved");
        api.post("/api/v1/runs/" + opened.get("runId").asString() + "/cancel", Api.ADMIN_KEY, null);
    }

    @Test
    void aPayloadWithoutAlerts_isAProblem() {
        var r = api.post("/api/v1/integrations/alertmanager", Api.ADMIN_KEY, "{\"status\":\"firing\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("alerts");
    }

    @Test
    void aLabelThatIsNotAString_isAProblemNamingIt() {
        var r = api.post(
                "/api/v1/integrations/alertmanager",
                Api.ADMIN_KEY,
                "{\"status\":\"firing\",\"alerts\":[{\"labels\":{\"alertname\":\"X\",\"instance\":[\"a\",1]}}]}");
        assertThat(r.status()).as(r.body()).isEqualTo(400);
        assertThat(r.json().get("field").asString()).isEqualTo("alerts[0].labels.instance");
    }
}
