package dev.cadre.platform.recall;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cadre.memory.InMemorySharedMemory;
import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.IncidentService;
import dev.cadre.platform.incidents.TimelineEntry;
import dev.cadre.platform.incidents.TimelineKind;
import dev.cadre.platform.web.SecretRedactor;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The index follows the incidents in shared memory: rebuilt from them on start, a resolution written
 * after start (by this instance or another) becomes searchable, a reopened incident leaves, and a
 * second instance on the same store answers the same — the database is the one copy.
 */
class RecallServiceTest {

    private static final Embedder MODEL = new CachingEmbedder(new MiniLmEmbedder());

    private final JsonMapper json = JsonMapper.builder().build();
    private final SharedMemory memory = new InMemorySharedMemory();
    private final IncidentService incidents = new IncidentService(
            memory,
            json,
            Clock.systemUTC(),
            new IncidentService.Settings(Duration.ofHours(1), 3, Duration.ofMinutes(30)),
            SecretRedactor.standard());
    private final Writer alice = Writer.apiClient("alice");
    private final List<RecallService> services = new java.util.ArrayList<>();

    @AfterEach
    void close() {
        services.forEach(RecallService::close);
        memory.close();
    }

    private RecallService service() {
        RecallService s = new RecallService(
                incidents,
                memory,
                json,
                new IncidentIndex(MODEL, json, IncidentIndex.Settings.defaults()),
                Clock.systemUTC(),
                Duration.ZERO);
        services.add(s);
        return s;
    }

    private String open(String alert, String host, String summary) {
        return incidents
                .open(
                        new IncidentService.OpenRequest(
                                "alertmanager:" + alert + "/" + host,
                                alert + " on " + host + ":9100",
                                "high",
                                "alertmanager",
                                Map.of("alertname", alert, "instance", host + ":9100"),
                                summary),
                        alice,
                        null)
                .incident()
                .id();
    }

    /** What the incident API stores on resolve: status, time and the resolver's root cause and fix. */
    private void resolve(String id, String rootCause, String fix) {
        change(id, v -> {
            v.put("status", "resolved");
            v.put("resolvedAt", java.time.Instant.now().toString());
            v.putObject("resolution")
                    .put("rootCause", rootCause)
                    .put("fix", fix)
                    .put("by", "alice");
            return v;
        });
    }

    private void change(String id, UnaryOperator<ObjectNode> f) {
        MemoryEntry e = memory.get(IncidentService.NAMESPACE, id, true).orElseThrow();
        ObjectNode v = f.apply((ObjectNode) json.readTree(e.value()));
        assertThat(memory.put(IncidentService.NAMESPACE, id, v.toString(), e.version(), alice))
                .isInstanceOf(WriteOutcome.Written.class);
    }

    private List<String> similarIds(RecallService s, String id) {
        return s.similarTo(id, RecallService.Filters.none(5)).orElseThrow().stream()
                .map(h -> h.record().incidentId())
                .toList();
    }

    @Test
    void rebuilds_from_the_database_and_follows_resolutions_made_later() {
        String disk = open("HostOutOfDiskSpace", "web-1", "Filesystem / is 97% full, /var/log holds 40 GB of logs");
        resolve(disk, "logrotate config broken, logs filled the disk", "fixed logrotate and compressed old logs");
        String cpu = open("HostHighCpuLoad", "db-2", "CPU above 95% for 15 minutes, a cron job spins in a loop");
        resolve(cpu, "stuck cron job", "killed the process");
        String stillOpen = open("HostOutOfDiskSpace", "web-4", "Root disk almost full, application logs growing");

        RecallService first = service();
        first.startNow();
        assertThat(first.status().indexed()).isEqualTo(2);

        String now = open("DiskSpaceLow", "web-9", "Only 2 GB left on /, logs under /var/log not rotated");
        List<String> found = similarIds(first, now);
        assertThat(found).containsExactly(disk, cpu);
        SimilarIncident top = first.similarTo(now, RecallService.Filters.none(1))
                .orElseThrow()
                .getFirst();
        assertThat(top.record().rootCause()).isEqualTo("logrotate config broken, logs filled the disk");
        assertThat(top.record().fix()).isEqualTo("fixed logrotate and compressed old logs");
        assertThat(top.record().resolvedBy()).isEqualTo("alice");
        assertThat(top.record().targetName()).isEqualTo("web-1");

        // Resolved after start: the change stream brings it in; never the incident asked about.
        resolve(stillOpen, "application debug logging left on", "turned debug logging off, rotated logs");
        await().atMost(Duration.ofSeconds(20))
                .until(() -> similarIds(first, now).size() == 3);
        assertThat(similarIds(first, stillOpen)).doesNotContain(stillOpen);

        // Reopened: no longer a memory of a resolution.
        change(stillOpen, v -> v.put("status", "open"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> similarIds(first, now).size() == 2);

        // Another instance (or this one restarted) rebuilds from the same database and answers the same.
        RecallService second = service();
        second.startNow();
        assertThat(similarIds(second, now)).isEqualTo(similarIds(first, now));
        assertThat(first.similarTo("inc-nope", RecallService.Filters.none(3))).isEmpty();
    }

    /**
     * A team that writes its findings only as notes on the incident's timeline, and a person's comment
     * there: both are part of what the incident remembers, and of what a new incident is compared by.
     */
    @Test
    void findings_noted_on_the_timeline_and_comments_feed_the_record() {
        String past = open("KubePodCrashLooping", "web-2222-ccccc", "Pod is crash looping");
        incidents.appendTimeline(
                past,
                new TimelineEntry(
                        TimelineKind.FINDINGS,
                        "k8s-orchestrator",
                        "Pod: {\"findings\": [{\"id\": \"pod-crash\", \"severity\": \"critical\","
                                + " \"category\": \"availability\", \"target\": \"shop/web\", \"description\":"
                                + " \"FATAL: FEATURE_X requires DB_URL to be set, exit code 1\","
                                + " \"suggestion\": \"roll back the FEATURE_X revision\", \"confidence\": 0.9}]}",
                        null,
                        null,
                        null));
        incidents.comment(past, "the new revision turned FEATURE_X on without its DB_URL", "alice", null);
        resolve(past, "FEATURE_X enabled without DB_URL", "rolled back to the previous revision");

        RecallService s = service();
        s.startNow();
        ResolutionRecord remembered = s.similarToText("crash", null, RecallService.Filters.none(1))
                .getFirst()
                .record();
        assertThat(remembered.findings())
                .extracting(ResolutionRecord.Finding::category, ResolutionRecord.Finding::description)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "availability", "FATAL: FEATURE_X requires DB_URL to be set, exit code 1"),
                        org.assertj.core.groups.Tuple.tuple(
                                "comment", "the new revision turned FEATURE_X on without its DB_URL"));
        assertThat(ResolutionRecords.symptoms(remembered)).contains("FEATURE_X requires DB_URL");

        // A new incident whose own notes say the same is compared by them.
        String now = open("KubePodCrashLooping", "api-7777-xxxxx", "Pod is crash looping");
        incidents.appendTimeline(
                now,
                new TimelineEntry(
                        TimelineKind.FINDINGS,
                        "k8s-orchestrator",
                        "log: FATAL FEATURE_X requires DB_URL",
                        null,
                        null,
                        null));
        assertThat(similarIds(s, now)).containsExactly(past);
    }

    /**
     * The change stream can deliver an incident's earlier versions after a rebuild read its resolution
     * (a rebuild called while the stream lags): an older, still-open version does not take the resolved
     * incident out of memory; a newer one (a real reopening) does.
     */
    @Test
    void an_older_change_arriving_after_a_rebuild_does_not_forget_the_resolution() {
        // Not following the stream: the test delivers the changes itself, in the order it wants.
        RecallService s = service();
        String past = open("KubePodCrashLooping", "web-7f7f7f-zzzzz", "Pod is crash looping");
        MemoryEntry opened = memory.get(IncidentService.NAMESPACE, past, true).orElseThrow();
        resolve(past, "FEATURE_X without DB_URL", "rolled back");
        s.rebuild();
        assertThat(s.status().indexed()).isEqualTo(1);

        s.onChange(new dev.cadre.memory.MemoryChange(
                0, IncidentService.NAMESPACE, past, opened.version(), opened.value(), java.time.Instant.now(), alice));
        assertThat(s.status().indexed())
                .as("a stale open version changes nothing")
                .isEqualTo(1);

        MemoryEntry resolved = memory.get(IncidentService.NAMESPACE, past, true).orElseThrow();
        s.onChange(new dev.cadre.memory.MemoryChange(
                0,
                IncidentService.NAMESPACE,
                past,
                resolved.version() + 1,
                opened.value(),
                java.time.Instant.now(),
                alice));
        assertThat(s.status().indexed()).as("a newer open version reopens it").isZero();
    }

    @Test
    void filters_keep_to_the_same_target_kind_and_time_window() {
        String host = open("HostOutOfMemory", "api-1", "Memory usage climbing for days, OOM killer");
        resolve(host, "memory leak in the api", "restarted and patched");
        String pod = incidents
                .open(
                        new IncidentService.OpenRequest(
                                "alertmanager:KubePodOOMKilled/shop",
                                "KubePodOOMKilled on cart-abc",
                                "high",
                                "alertmanager",
                                Map.of("alertname", "KubePodOOMKilled", "namespace", "shop", "pod", "cart-abc-def"),
                                "Container was OOMKilled, memory at its limit"),
                        alice,
                        null)
                .incident()
                .id();
        resolve(pod, "memory limit too low", "raised the limit");
        RecallService s = service();
        s.startNow();
        String now = open("HostOutOfMemory", "api-7", "Available memory below 5%, OOM killer invoked");

        assertThat(similarIds(s, now)).containsExactlyInAnyOrder(host, pod);
        var sameKind = new RecallService.Filters(true, false, false, null, 5, SimilarQuery.Mode.HYBRID);
        assertThat(s.similarTo(now, sameKind).orElseThrow())
                .extracting(h -> h.record().incidentId())
                .containsExactly(host);
        var lastHour = new RecallService.Filters(false, false, false, Duration.ofHours(1), 5, SimilarQuery.Mode.HYBRID);
        assertThat(s.similarTo(now, lastHour).orElseThrow()).hasSize(2);
        var any = RecallService.Filters.none(5);
        assertThat(s.similarToText("container OOMKilled at its memory limit", "POD", any))
                .extracting(h -> h.record().incidentId())
                .containsExactly(pod);
        assertThat(s.similarToText("container OOMKilled at its memory limit", "SERVICE", any))
                .isEmpty();
    }

    @Test
    void the_tool_cites_the_known_fix_as_evidence_and_runs_without_an_incident_are_told_what_to_give()
            throws Exception {
        String past = open("HostOutOfDiskSpace", "web-1", "Filesystem / is 97% full, /var/log holds 40 GB of logs");
        resolve(past, "logrotate config broken, logs filled the disk", "fixed logrotate and compressed old logs");
        String other = open("HostHighCpuLoad", "db-2", "CPU above 95% for 15 minutes, a cron job spins in a loop");
        resolve(other, "stuck cron job", "killed the process");
        RecallService s = service();
        s.startNow();
        String now = open("DiskSpaceLow", "web-9", "Only 2 GB left on /, logs under /var/log not rotated");
        // The intake names the incident in the run's context; this run is not linked yet.
        var tool = new SimilarIncidentTool(
                        s,
                        incidents,
                        run -> run.equals("run_1")
                                ? java.util.Optional.of("{\"incident\":\"" + now + "\"}")
                                : java.util.Optional.empty(),
                        json,
                        0.5)
                .tool();

        var answer = json.readTree(tool.execute(
                json.createObjectNode(), new dev.cadre.agent.tool.ToolContext("run_1", "run_1", "triage", "c1")));
        assertThat(answer.path("incident").asString()).isEqualTo(now);
        assertThat(answer.path("similar").get(0).path("incident").asString()).isEqualTo(past);
        assertThat(answer.path("similar").get(0).path("fix").asString())
                .isEqualTo("fixed logrotate and compressed old logs");
        var finding = answer.path("findings").get(0);
        assertThat(finding.path("category").asString()).isEqualTo("history");
        assertThat(finding.path("severity").asString()).isEqualTo("info");
        assertThat(finding.path("id").asString()).isEqualTo("history@" + past);
        assertThat(finding.path("description").asString())
                .startsWith("Seen before: " + past + " (HostOutOfDiskSpace on web-1, resolved ")
                .endsWith("root cause: logrotate config broken, logs filled the disk; fixed by: fixed logrotate and"
                        + " compressed old logs");
        assertThat(finding.path("suggestion").asString())
                .isEqualTo("known fix, as evidence (not an action taken; it still needs approval): fixed logrotate"
                        + " and compressed old logs");
        // The findings parser the analyst uses reads the citation as a standard finding.
        assertThat(dev.cadre.agent.workflow.FindingsText.extract(answer.toString()))
                .extracting(dev.cadre.agent.workflow.Finding::category)
                .containsExactly("history");

        var byText = json.readTree(tool.execute(
                json.createObjectNode()
                        .put("text", "stuck cron job spinning in a loop, CPU 100%")
                        .put("limit", 1),
                new dev.cadre.agent.tool.ToolContext("run_2", "run_2", "triage", "c2")));
        assertThat(byText.path("similar").get(0).path("incident").asString()).isEqualTo(other);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> tool.execute(
                        json.createObjectNode(),
                        new dev.cadre.agent.tool.ToolContext("run_3", "run_3", "triage", "c3")))
                .isInstanceOf(dev.cadre.agent.tool.ToolException.class)
                .hasMessageContaining("give 'incident' or a 'text'");
    }
}
