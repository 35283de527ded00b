package dev.cadre.platform.incidents;

import dev.cadre.memory.MemoryEntry;
import dev.cadre.memory.SharedMemory;
import dev.cadre.memory.WriteOutcome;
import dev.cadre.memory.Writer;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.web.SecretRedactor;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Incident records in shared memory, the "has someone already done this?" check of seed 003: one
 * active incident per fingerprint, every sighting counted on it, remediation at most once per
 * (incident, runbook) per window, escalation to a human after N sightings. All writes are
 * compare-and-set on the entry's version, so two agents (or an agent and the Alertmanager intake)
 * acting at once never both "open the first incident" or both "run the first remediation".
 *
 * <p>Layout of namespace {@code incidents}: {@code inc-…} the incident; {@code fp:…} a pointer from
 * a fingerprint to its active incident (created with expected version 0: the de-duplication point);
 * {@code run:…} which incident a run works on.
 */
public final class IncidentService {

    public static final String NAMESPACE = AgentCatalog.INCIDENTS_NAMESPACE;
    private static final Logger log = LoggerFactory.getLogger(IncidentService.class);
    private static final int RETRIES = 32;

    /**
     * Runs an incident lists (newest last); {@code runCount} counts them all. Older links live on in
     * the {@code run:<id>} keys and the runs themselves, so the value stays bounded however long an
     * incident stays open (uncapped, one open for days passed memory's value limit).
     */
    static final int MAX_RUNS = 50;

    /** Remediations and alert notifications kept once outside their window (the escalation always stays). */
    static final int MAX_RECORDS = 20;

    private final SharedMemory memory;
    private final JsonMapper json;
    private final Clock clock;
    private final Settings settings;
    private final SecretRedactor redactor;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    /**
     * @param remediationWindow a runbook runs at most once per incident within this window
     * @param escalateAfter sightings of an incident after which it is handed to a human (≥ 1)
     * @param notifyWindow at most one alert notification per incident within this window
     * @param duplicateWindow copies of one notification (same delivery key) within this window are
     *     one sighting: an Alertmanager HA pair, a retried or a concurrent delivery
     */
    public record Settings(
            Duration remediationWindow, int escalateAfter, Duration notifyWindow, Duration duplicateWindow) {
        public Settings {
            if (escalateAfter < 1) {
                throw new IllegalArgumentException("cadre.incidents.escalate-after must be ≥ 1, was " + escalateAfter);
            }
            if (remediationWindow.isNegative() || notifyWindow.isNegative() || duplicateWindow.isNegative()) {
                throw new IllegalArgumentException("cadre.incidents windows must not be negative");
            }
        }

        /** With the default duplicate window ({@link #DEFAULT_DUPLICATE_WINDOW}). */
        public Settings(Duration remediationWindow, int escalateAfter, Duration notifyWindow) {
            this(remediationWindow, escalateAfter, notifyWindow, DEFAULT_DUPLICATE_WINDOW);
        }
    }

    /** {@code cadre.incidents.duplicate-window}'s default. */
    public static final Duration DEFAULT_DUPLICATE_WINDOW = Duration.ofSeconds(10);

    /** Delivery keys an incident remembers (the newest; older ones are outside any sane window). */
    static final int MAX_DELIVERY_KEYS = 20;

    /** Told when an incident is escalated (the notifier pages the escalation channel once). */
    public interface Listener {
        void escalated(Incident incident);
    }

    /**
     * What to open. {@code deliveryKey} names the notification (Alertmanager: its {@code startsAt} and
     * status): a sighting with the key of one counted less than the duplicate window ago is a copy of
     * it and is not counted again; null counts every call.
     */
    public record OpenRequest(
            String fingerprint,
            String title,
            String severity,
            String source,
            Map<String, String> labels,
            @Nullable String summary,
            @Nullable String deliveryKey) {
        public OpenRequest(
                String fingerprint,
                String title,
                String severity,
                String source,
                Map<String, String> labels,
                @Nullable String summary) {
            this(fingerprint, title, severity, source, labels, summary, null);
        }
    }

    /**
     * The incident found or created, whether this call created it, whether it escalated it, and
     * whether it was a copy of a sighting already counted (then nothing was written).
     */
    public record Opened(Incident incident, boolean created, boolean escalatedNow, boolean duplicate) {
        public Opened(Incident incident, boolean created, boolean escalatedNow) {
            this(incident, created, escalatedNow, false);
        }
    }

    /** The outcome of a remediation claim, checked after approval and before a runbook runs. */
    public sealed interface Claim {
        record Granted(Incident incident) implements Claim {}

        record AlreadyDone(Incident incident, JsonNode previous) implements Claim {}

        record WithHuman(Incident incident) implements Claim {}

        record Closed(Incident incident) implements Claim {}
    }

    /** The outcome of an agent's versioned update. */
    public sealed interface Update {
        record Written(Incident incident) implements Update {}

        record Conflict(Incident current) implements Update {}

        record NotFound(String id) implements Update {}
    }

    public IncidentService(
            SharedMemory memory, JsonMapper json, Clock clock, Settings settings, SecretRedactor redactor) {
        this.redactor = redactor;
        this.memory = memory;
        this.json = json;
        this.clock = clock;
        this.settings = settings;
    }

    /**
     * An incident's value as written to memory: redacted as a whole (issue 23), so an alert's
     * annotation or an agent's note holding a credential is never kept, read or streamed in clear.
     */
    private String stored(ObjectNode value) {
        return redactor.redact(value).toString();
    }

    public Settings settings() {
        return settings;
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    // ---- open / find ----

    /**
     * Finds the active incident of the fingerprint and counts one more sighting on it, or opens a
     * new one. The sighting that reaches {@code escalateAfter} escalates it.
     */
    public Opened open(OpenRequest request, Writer writer, @Nullable String runId) {
        String pointerKey = pointerKey(request.fingerprint());
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            Optional<MemoryEntry> pointer = memory.get(NAMESPACE, pointerKey, true);
            if (pointer.isPresent()) {
                String id =
                        json.readTree(pointer.get().value()).path("incident").asString();
                Optional<Incident> existing = get(id);
                if (existing.isEmpty()) {
                    // The opener claimed the pointer and has not written the incident yet (or crashed
                    // in between): write it ourselves; expected version 0 lets exactly one of us win.
                    ObjectNode created = newIncident(id, request, runId);
                    if (memory.put(NAMESPACE, id, stored(created), 0, writer) instanceof WriteOutcome.Written w) {
                        linkRun(runId, id, writer);
                        return new Opened(new Incident(created, w.version()), true, false);
                    }
                    continue;
                }
                Incident current = existing.get();
                if (!current.active()) {
                    if (isCopy(current, request.deliveryKey(), Duration.ofDays(365))
                            && current.value().path("resolvedByAlert").asBoolean(false)) {
                        // A notification of the firing the alert's own resolve ended, arriving after it
                        // (deliveries overtake each other under load): stale, not a new incident.
                        return new Opened(current, false, false, true);
                    }
                    memory.delete(NAMESPACE, pointerKey, pointer.get().version(), writer);
                    continue;
                }
                if (isCopy(current, request.deliveryKey())) {
                    // Decided on the version read: a concurrent first copy either wrote its key
                    // before this read, or its write makes ours a conflict and the retry sees it.
                    linkRun(runId, id, writer);
                    return new Opened(current, false, false, true);
                }
                ObjectNode next = current.value().deepCopy();
                rememberDelivery(next, request.deliveryKey());
                int sightings = current.occurrences() + 1;
                next.put("occurrences", sightings);
                next.put("lastSeenAt", now());
                addRun(next, runId);
                boolean escalateNow = !current.escalated() && sightings >= settings.escalateAfter();
                if (escalateNow) {
                    next.put("status", Incident.ESCALATED);
                    next.put("escalatedAt", now());
                    timeline(
                            next,
                            "escalated to a human after " + sightings + " sightings (cadre.incidents.escalate-after="
                                    + settings.escalateAfter() + ")");
                }
                if (memory.put(NAMESPACE, id, stored(next), current.version(), writer)
                        instanceof WriteOutcome.Written w) {
                    Incident written = new Incident(next, w.version());
                    linkRun(runId, id, writer);
                    if (escalateNow) {
                        log.warn("Incident {} ({}) escalated after {} sightings", id, request.fingerprint(), sightings);
                        listeners.forEach(l -> l.escalated(written));
                    }
                    return new Opened(written, false, escalateNow);
                }
                continue;
            }
            String id = "inc-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            ObjectNode ptr = json.createObjectNode().put("incident", id).put("fingerprint", request.fingerprint());
            if (memory.put(NAMESPACE, pointerKey, ptr.toString(), 0, writer) instanceof WriteOutcome.Written) {
                ObjectNode created = newIncident(id, request, runId);
                WriteOutcome out = memory.put(NAMESPACE, id, stored(created), 0, writer);
                if (out instanceof WriteOutcome.Written w) {
                    linkRun(runId, id, writer);
                    log.info("Incident {} opened for {}", id, request.fingerprint());
                    boolean escalateNow = settings.escalateAfter() <= 1;
                    Incident incident = new Incident(created, w.version());
                    return escalateNow ? escalateFresh(incident, writer) : new Opened(incident, true, false);
                }
            }
        }
        throw new IllegalStateException(
                "incident for " + request.fingerprint() + " kept changing under " + RETRIES + " attempts");
    }

    private Opened escalateFresh(Incident incident, Writer writer) {
        Incident escalated = modify(incident.id(), writer, v -> {
                    v.put("status", Incident.ESCALATED);
                    v.put("escalatedAt", now());
                    return v;
                })
                .orElse(incident);
        listeners.forEach(l -> l.escalated(escalated));
        return new Opened(escalated, true, true);
    }

    public Optional<Incident> get(String id) {
        return memory.get(NAMESPACE, id, true)
                .map(e -> new Incident((ObjectNode) json.readTree(e.value()), e.version()));
    }

    /** The active incident of a fingerprint. */
    public Optional<Incident> findActive(String fingerprint) {
        return memory.get(NAMESPACE, pointerKey(fingerprint), true)
                .flatMap(p -> get(json.readTree(p.value()).path("incident").asString()))
                .filter(Incident::active);
    }

    /** The incident a run works on (opened by it, or the one the Alertmanager intake started it for). */
    public Optional<Incident> forRun(String runId) {
        return memory.get(NAMESPACE, runKey(runId), true)
                .flatMap(p -> get(json.readTree(p.value()).path("incident").asString()));
    }

    /** Incidents, active ones only unless {@code all}, newest first, at most {@code limit}. */
    public List<Incident> list(boolean all, int limit) {
        List<Incident> out = new ArrayList<>();
        String after = null;
        do {
            var page = memory.list(NAMESPACE, "inc-", after, 500);
            for (MemoryEntry e : page.entries()) {
                Incident i = new Incident((ObjectNode) json.readTree(e.value()), e.version());
                if (all || i.active()) {
                    out.add(i);
                }
            }
            after = page.nextAfterKey();
        } while (after != null);
        out.sort((a, b) -> b.value()
                .path("openedAt")
                .asString()
                .compareTo(a.value().path("openedAt").asString()));
        return out.size() > limit ? out.subList(0, limit) : out;
    }

    /** Links a run to an incident (the intake's triage run), so the run's tools act on it. */
    public void linkRun(@Nullable String runId, String incidentId, Writer writer) {
        if (runId == null) {
            return;
        }
        memory.put(
                NAMESPACE,
                runKey(runId),
                json.createObjectNode().put("incident", incidentId).toString(),
                0,
                writer);
        modify(incidentId, writer, v -> {
            if (hasRun(v, runId)) {
                return null;
            }
            addRun(v, runId);
            return v;
        });
    }

    /**
     * Runs that active incidents still list (their newest {@link #MAX_RUNS} each): retention keeps
     * these runs and their links whatever their age.
     */
    public java.util.Set<String> runsOfActiveIncidents() {
        java.util.Set<String> out = new java.util.HashSet<>();
        for (Incident i : list(false, Integer.MAX_VALUE)) {
            out.addAll(i.runs());
        }
        return out;
    }

    /**
     * Deletes {@code run:<id>} links written before {@code before}, except those of runs an active
     * incident still lists; returns how many went. Retention calls it so one link per run does not
     * pile up forever (the incident keeps its own capped list and count).
     */
    public int pruneRunLinks(Instant before, Writer writer) {
        java.util.Set<String> keep = runsOfActiveIncidents();
        int removed = 0;
        String after = null;
        do {
            var page = memory.list(NAMESPACE, "run:", after, 500);
            for (MemoryEntry e : page.entries()) {
                String runId = e.key().substring("run:".length());
                if (e.updatedAt().isBefore(before) && !keep.contains(runId)) {
                    if (memory.delete(NAMESPACE, e.key(), e.version(), writer) instanceof WriteOutcome.Written) {
                        removed++;
                    }
                }
            }
            after = page.nextAfterKey();
        } while (after != null);
        return removed;
    }

    // ---- updates ----

    /** An agent's update at the version it read: status, severity and/or a note for the timeline. */
    public Update update(
            String id,
            long expectedVersion,
            @Nullable String status,
            @Nullable String severity,
            @Nullable String note,
            Writer writer) {
        Optional<Incident> current = get(id);
        if (current.isEmpty()) {
            return new Update.NotFound(id);
        }
        if (current.get().version() != expectedVersion) {
            return new Update.Conflict(current.get());
        }
        ObjectNode next = current.get().value().deepCopy();
        if (severity != null) {
            next.put("severity", severity);
        }
        if (note != null) {
            timeline(next, writer.id() + ": " + note);
        }
        if (status != null && !status.equals(current.get().status())) {
            next.put("status", status);
            if (Incident.RESOLVED.equals(status)) {
                next.put("resolvedAt", now());
            }
            if (Incident.ESCALATED.equals(status)) {
                next.put("escalatedAt", now());
            }
        }
        WriteOutcome out = memory.put(NAMESPACE, id, stored(next), expectedVersion, writer);
        return switch (out) {
            case WriteOutcome.Written w -> {
                Incident written = new Incident(next, w.version());
                if (!written.active()) {
                    dropPointer(written, writer);
                }
                yield new Update.Written(written);
            }
            case WriteOutcome.Conflict c -> new Update.Conflict(get(id).orElse(current.get()));
        };
    }

    /**
     * Resolves the active incident of a fingerprint (Alertmanager's {@code resolved}). The
     * fingerprint's pointer stays on the resolved incident, so a notification of the same firing
     * that arrives after the resolve (same delivery key) is recognised as stale; the next real
     * firing (a new {@code startsAt}) replaces it with a new incident.
     */
    public Optional<Incident> resolve(String fingerprint, String reason, Writer writer) {
        Optional<Incident> active = findActive(fingerprint);
        if (active.isEmpty()) {
            return Optional.empty();
        }
        return modify(active.get().id(), writer, v -> {
            if (Incident.RESOLVED.equals(v.path("status").asString())) {
                return null;
            }
            v.put("status", Incident.RESOLVED);
            v.put("resolvedAt", now());
            v.put("resolvedByAlert", true);
            timeline(v, "resolved: " + reason);
            return v;
        });
    }

    // ---- remediation and notification guards ----

    /**
     * Claims the right to run {@code runbook} for the incident now: granted at most once per
     * (incident, runbook) per window, never for an escalated (human-owned) or resolved incident.
     */
    public Claim claimRemediation(String incidentId, String runbook, String runId, String callId, Writer writer) {
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            Incident current = get(incidentId)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "no incident '" + incidentId + "' (incident_find lists the open ones)"));
            if (!current.active()) {
                return new Claim.Closed(current);
            }
            if (current.escalated()) {
                return new Claim.WithHuman(current);
            }
            JsonNode previous = lastRemediation(current, runbook);
            if (previous != null) {
                return new Claim.AlreadyDone(current, previous);
            }
            ObjectNode next = current.value().deepCopy();
            ArrayNode list =
                    next.has("remediations") ? (ArrayNode) next.get("remediations") : next.putArray("remediations");
            list.addObject()
                    .put("runbook", runbook)
                    .put("runId", runId)
                    .put("callId", callId)
                    .put("startedAt", now())
                    .put("status", "running");
            capRemediations(list);
            if (memory.put(NAMESPACE, incidentId, stored(next), current.version(), writer)
                    instanceof WriteOutcome.Written w) {
                return new Claim.Granted(new Incident(next, w.version()));
            }
        }
        throw new IllegalStateException("incident " + incidentId + " kept changing under " + RETRIES + " attempts");
    }

    /** Records how a granted remediation ended. */
    public void finishRemediation(
            String incidentId, String callId, String status, @Nullable Integer exitCode, Writer writer) {
        modify(incidentId, writer, v -> {
            for (JsonNode r : v.path("remediations")) {
                if (callId.equals(r.path("callId").asString()) && r instanceof ObjectNode o) {
                    o.put("status", status);
                    o.put("finishedAt", now());
                    if (exitCode != null) {
                        o.put("exitCode", exitCode);
                    }
                }
            }
            return v;
        });
    }

    /**
     * Claims one notification of {@code kind} for the incident: an {@code alert} at most once per
     * notify window, an {@code escalation} once ever. False when one was already sent.
     */
    public boolean claimNotification(String incidentId, String kind, Writer writer) {
        Instant now = clock.instant();
        boolean[] granted = {false};
        modify(incidentId, writer, v -> {
            granted[0] = false;
            for (JsonNode n : v.path("notifications")) {
                if (kind.equals(n.path("kind").asString())) {
                    if (kind.equals("escalation")) {
                        return null;
                    }
                    Instant at = Instant.parse(n.path("at").asString());
                    if (at.plus(settings.notifyWindow()).isAfter(now)) {
                        return null;
                    }
                }
            }
            ArrayNode list = v.has("notifications") ? (ArrayNode) v.get("notifications") : v.putArray("notifications");
            list.addObject().put("kind", kind).put("at", now.toString());
            capNotifications(list, now);
            granted[0] = true;
            return v;
        });
        return granted[0];
    }

    /** What an agent may still do about the incident: the hint scripted and real agents read. */
    public String remediationHint(Incident incident, boolean escalatedNow) {
        if (!incident.active()) {
            return "none";
        }
        if (incident.escalated()) {
            return escalatedNow ? "ask-human" : "with-human";
        }
        for (JsonNode r : incident.value().path("remediations")) {
            if (withinWindow(r)) {
                return "already-done";
            }
        }
        return "allowed";
    }

    private @Nullable JsonNode lastRemediation(Incident incident, String runbook) {
        JsonNode found = null;
        for (JsonNode r : incident.value().path("remediations")) {
            if (runbook.equals(r.path("runbook").asString()) && withinWindow(r)) {
                found = r;
            }
        }
        return found;
    }

    private boolean withinWindow(JsonNode remediation) {
        String started = remediation.path("startedAt").asString("");
        return !started.isEmpty()
                && Instant.parse(started).plus(settings.remediationWindow()).isAfter(clock.instant());
    }

    // ---- helpers ----

    /** Read-modify-write of an incident; the function returns null to leave it unchanged. */
    private Optional<Incident> modify(String id, Writer writer, UnaryOperator<ObjectNode> change) {
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            Optional<Incident> current = get(id);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            ObjectNode next = change.apply(current.get().value().deepCopy());
            if (next == null) {
                return current;
            }
            if (memory.put(NAMESPACE, id, stored(next), current.get().version(), writer)
                    instanceof WriteOutcome.Written w) {
                return Optional.of(new Incident(next, w.version()));
            }
        }
        throw new IllegalStateException("incident " + id + " kept changing under " + RETRIES + " attempts");
    }

    private void dropPointer(Incident incident, Writer writer) {
        String key = pointerKey(incident.fingerprint());
        memory.get(NAMESPACE, key, true)
                .filter(p -> incident.id()
                        .equals(json.readTree(p.value()).path("incident").asString()))
                .ifPresent(p -> memory.delete(NAMESPACE, key, p.version(), writer));
    }

    private ObjectNode newIncident(String id, OpenRequest request, @Nullable String runId) {
        ObjectNode v = json.createObjectNode();
        v.put("id", id);
        v.put("fingerprint", request.fingerprint());
        v.put("title", request.title());
        v.put("severity", request.severity());
        v.put("status", Incident.OPEN);
        v.put("source", request.source());
        ObjectNode labels = v.putObject("labels");
        request.labels().forEach(labels::put);
        if (request.summary() != null) {
            v.put("summary", request.summary());
        }
        v.put("openedAt", now());
        v.put("lastSeenAt", now());
        v.put("occurrences", 1);
        rememberDelivery(v, request.deliveryKey());
        v.putArray("runs");
        addRun(v, runId);
        v.putArray("remediations");
        v.putArray("notifications");
        timeline(v, "opened by " + request.source());
        return v;
    }

    /** Whether a sighting with this key was counted on the incident less than the duplicate window ago. */
    private boolean isCopy(Incident incident, @Nullable String deliveryKey) {
        return isCopy(incident, deliveryKey, settings.duplicateWindow());
    }

    private boolean isCopy(Incident incident, @Nullable String deliveryKey, Duration window) {
        if (deliveryKey == null) {
            return false;
        }
        String at = incident.value().path("deliveries").path(deliveryKey).asString("");
        return !at.isEmpty() && Instant.parse(at).plus(window).isAfter(clock.instant());
    }

    /** Records when a sighting with this key was counted; keeps the newest {@link #MAX_DELIVERY_KEYS}. */
    private void rememberDelivery(ObjectNode v, @Nullable String deliveryKey) {
        if (deliveryKey == null) {
            return;
        }
        ObjectNode deliveries = v.has("deliveries") && v.get("deliveries").isObject()
                ? (ObjectNode) v.get("deliveries")
                : v.putObject("deliveries");
        deliveries.remove(deliveryKey);
        deliveries.put(deliveryKey, now());
        while (deliveries.size() > MAX_DELIVERY_KEYS) {
            deliveries.remove(deliveries.propertyNames().iterator().next());
        }
    }

    private void timeline(ObjectNode v, String text) {
        ArrayNode t = v.has("timeline") ? (ArrayNode) v.get("timeline") : v.putArray("timeline");
        t.addObject().put("at", now()).put("text", text.length() > 500 ? text.substring(0, 499) + "…" : text);
        while (t.size() > 100) {
            t.remove(0);
        }
    }

    private static boolean hasRun(ObjectNode v, String runId) {
        for (JsonNode r : v.path("runs")) {
            if (runId.equals(r.asString())) {
                return true;
            }
        }
        return false;
    }

    private static void addRun(ObjectNode v, @Nullable String runId) {
        if (runId != null && !hasRun(v, runId)) {
            ArrayNode runs = v.has("runs") ? (ArrayNode) v.get("runs") : v.putArray("runs");
            long before = v.has("runCount") ? v.path("runCount").asLong() : runs.size();
            runs.add(runId);
            while (runs.size() > MAX_RUNS) {
                runs.remove(0);
            }
            v.put("runCount", before + 1);
        }
    }

    /** Drops the oldest remediations that no longer guard anything (finished and outside the window). */
    private void capRemediations(ArrayNode list) {
        for (int i = 0; i < list.size() && list.size() > MAX_RECORDS; ) {
            JsonNode r = list.get(i);
            if (!"running".equals(r.path("status").asString()) && !withinWindow(r)) {
                list.remove(i);
            } else {
                i++;
            }
        }
    }

    /** Drops the oldest alert notifications outside the notify window; the escalation record stays. */
    private void capNotifications(ArrayNode list, Instant now) {
        for (int i = 0; i < list.size() && list.size() > MAX_RECORDS; ) {
            JsonNode n = list.get(i);
            boolean old = !"escalation".equals(n.path("kind").asString())
                    && !Instant.parse(n.path("at").asString())
                            .plus(settings.notifyWindow())
                            .isAfter(now);
            if (old) {
                list.remove(i);
            } else {
                i++;
            }
        }
    }

    private String now() {
        return clock.instant().toString();
    }

    static String pointerKey(String fingerprint) {
        String safe = fingerprint.replaceAll("[^A-Za-z0-9._:@/-]", "_");
        return safe.length() <= 100 ? "fp:" + safe : "fp:sha256:" + sha256(fingerprint);
    }

    static String runKey(String runId) {
        return runId.length() <= 120 ? "run:" + runId : "run:sha256:" + sha256(runId);
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
