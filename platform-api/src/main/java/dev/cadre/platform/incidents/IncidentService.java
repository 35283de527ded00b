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
    private final IncidentTimeline timeline;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final IncidentIndex index;
    private final List<Runnable> timelineWatchers = new CopyOnWriteArrayList<>();

    /**
     * @param remediationWindow a runbook runs at most once per incident within this window
     * @param escalateAfter sightings of an incident after which it is handed to a human (≥ 1)
     * @param notifyWindow at most one alert notification per incident within this window
     * @param duplicateWindow copies of one notification (same delivery key) within this window are
     *     one sighting: an Alertmanager HA pair, a retried or a concurrent delivery
     */
    public record Settings(
            Duration remediationWindow,
            int escalateAfter,
            Duration notifyWindow,
            Duration duplicateWindow,
            Duration sightingWriteInterval) {
        public Settings {
            if (escalateAfter < 1) {
                throw new IllegalArgumentException("cadre.incidents.escalate-after must be ≥ 1, was " + escalateAfter);
            }
            if (remediationWindow.isNegative() || notifyWindow.isNegative() || duplicateWindow.isNegative()) {
                throw new IllegalArgumentException("cadre.incidents windows must not be negative");
            }
            if (sightingWriteInterval.isNegative()) {
                throw new IllegalArgumentException(
                        "cadre.incidents.sighting-write-interval must not be negative, was " + sightingWriteInterval);
            }
        }

        /** With the default sighting write interval ({@link #DEFAULT_SIGHTING_WRITE_INTERVAL}). */
        public Settings(
                Duration remediationWindow, int escalateAfter, Duration notifyWindow, Duration duplicateWindow) {
            this(remediationWindow, escalateAfter, notifyWindow, duplicateWindow, DEFAULT_SIGHTING_WRITE_INTERVAL);
        }

        /** With the default duplicate window ({@link #DEFAULT_DUPLICATE_WINDOW}). */
        public Settings(Duration remediationWindow, int escalateAfter, Duration notifyWindow) {
            this(remediationWindow, escalateAfter, notifyWindow, DEFAULT_DUPLICATE_WINDOW);
        }
    }

    /**
     * {@code cadre.incidents.sighting-write-interval}'s default: a sighting is always on the timeline,
     * but the record's {@code occurrences}/{@code lastSeenAt} are rewritten (a new version) at most this
     * often per incident, so an alert repeated many times a second does not grow memory history.
     */
    public static final Duration DEFAULT_SIGHTING_WRITE_INTERVAL = Duration.ofMinutes(1);

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
            @Nullable String deliveryKey,
            @Nullable IncidentTarget target) {
        public OpenRequest(
                String fingerprint,
                String title,
                String severity,
                String source,
                Map<String, String> labels,
                @Nullable String summary,
                @Nullable String deliveryKey) {
            this(fingerprint, title, severity, source, labels, summary, deliveryKey, null);
        }

        public OpenRequest(
                String fingerprint,
                String title,
                String severity,
                String source,
                Map<String, String> labels,
                @Nullable String summary) {
            this(fingerprint, title, severity, source, labels, summary, null, null);
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

    /** With the timeline kept in this process only ({@link InMemoryIncidentTimeline}). */
    public IncidentService(
            SharedMemory memory, JsonMapper json, Clock clock, Settings settings, SecretRedactor redactor) {
        this(memory, json, clock, settings, redactor, new InMemoryIncidentTimeline());
    }

    public IncidentService(
            SharedMemory memory,
            JsonMapper json,
            Clock clock,
            Settings settings,
            SecretRedactor redactor,
            IncidentTimeline timeline) {
        this(memory, json, clock, settings, redactor, timeline, new InMemoryIncidentIndex());
    }

    public IncidentService(
            SharedMemory memory,
            JsonMapper json,
            Clock clock,
            Settings settings,
            SecretRedactor redactor,
            IncidentTimeline timeline,
            IncidentIndex index) {
        this.index = index;
        this.timeline = timeline;
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
    private WriteOutcome putIncident(String id, ObjectNode value, long expectedVersion, Writer writer) {
        WriteOutcome out = memory.put(NAMESPACE, id, stored(value), expectedVersion, writer);
        if (out instanceof WriteOutcome.Written) {
            index.put(indexRow(id, value));
        }
        return out;
    }

    private static IncidentIndex.Row indexRow(String id, JsonNode v) {
        Instant opened = parseInstant(v.path("openedAt").asString(""));
        return new IncidentIndex.Row(
                id,
                // The database keeps microseconds: the page position must be what it compares.
                opened == null ? Instant.EPOCH : opened.truncatedTo(java.time.temporal.ChronoUnit.MICROS),
                v.path("status").asString(Incident.OPEN),
                v.path("severity").asString("").toLowerCase(java.util.Locale.ROOT),
                v.path("source").asString("").toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * Fills the list's index from the incident records when it has fewer rows than there are
     * incidents (an install from before the index, or a write that crashed between the record and its
     * row): once, at start-up, so the list itself never reads every incident.
     */
    public int reindexIfIncomplete() {
        List<IncidentIndex.Row> rows = new ArrayList<>();
        String after = null;
        do {
            var page = memory.list(NAMESPACE, "inc-", after, 500);
            for (MemoryEntry e : page.entries()) {
                rows.add(indexRow(e.key(), json.readTree(e.value())));
            }
            after = page.nextAfterKey();
        } while (after != null);
        if (index.size() >= rows.size()) {
            return 0;
        }
        rows.forEach(index::put);
        return rows.size();
    }

    /** An incident the list's index found: its index row (the page position) and its record now, if any. */
    public record Listed(IncidentIndex.Row row, @Nullable Incident incident) {}

    /**
     * A page of the list's index, newest opened first, for {@code filter} after the position ({@code
     * afterOpenedAt}, {@code afterId}), each with its record as it is now; at most {@code limit}.
     */
    public List<Listed> page(
            IncidentIndex.Filter filter, @Nullable Instant afterOpenedAt, @Nullable String afterId, int limit) {
        List<Listed> out = new ArrayList<>();
        for (IncidentIndex.Row row : index.page(filter, afterOpenedAt, afterId, limit)) {
            out.add(new Listed(row, get(row.id()).orElse(null)));
        }
        return out;
    }

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
        return open(request, writer, runId, null);
    }

    /**
     * As {@link #open(OpenRequest, Writer, String)}, starting from what {@code seen} read for the
     * fingerprint instead of reading it again (the intake looks every alert up to charge its key before
     * it opens any). Every write is still a compare-and-set, so a lookup that is out of date by then
     * only costs one more attempt, which reads afresh.
     */
    public Opened open(OpenRequest request, Writer writer, @Nullable String runId, @Nullable Lookup seen) {
        if (seen != null && !seen.fingerprint().equals(request.fingerprint())) {
            throw new IllegalArgumentException(
                    "lookup of " + seen.fingerprint() + " used to open " + request.fingerprint());
        }
        String pointerKey = pointerKey(request.fingerprint());
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            boolean looked = attempt == 0 && seen != null;
            Optional<MemoryEntry> pointer = looked ? seen.pointer() : memory.get(NAMESPACE, pointerKey, true);
            if (pointer.isPresent()) {
                String id =
                        json.readTree(pointer.get().value()).path("incident").asString();
                Optional<Incident> existing = looked ? seen.incident() : get(id);
                if (existing.isEmpty()) {
                    // The opener claimed the pointer and has not written the incident yet (or crashed
                    // in between): write it ourselves; expected version 0 lets exactly one of us win.
                    claimFirst(id, request);
                    ObjectNode created = newIncident(id, request, runId);
                    if (putIncident(id, created, 0, writer) instanceof WriteOutcome.Written w) {
                        opened(id, created, request, writer);
                        linkRun(runId, id, writer);
                        return new Opened(new Incident(created, w.version()), true, false);
                    }
                    continue;
                }
                Incident current = existing.get();
                if (!current.active()) {
                    if (request.deliveryKey() != null
                            && current.value().path("resolvedByAlert").asBoolean(false)
                            && (isCopy(current, request.deliveryKey(), Duration.ofDays(365))
                                    || timeline.deliverySeen(id, deliveryKey(request.deliveryKey())))) {
                        // A notification of the firing the alert's own resolve ended, arriving after it
                        // (deliveries overtake each other under load): stale, not a new incident.
                        return new Opened(current, false, false, true);
                    }
                    memory.delete(NAMESPACE, pointerKey, pointer.get().version(), writer);
                    continue;
                }
                if (request.deliveryKey() != null
                        && !timeline.claimDelivery(
                                id, deliveryKey(request.deliveryKey()), clock.instant(), settings.duplicateWindow())) {
                    // A copy of a notification counted less than the duplicate window ago (an HA pair,
                    // a retry, a concurrent delivery): the claim is atomic, so exactly one copy counts.
                    linkRun(runId, id, writer);
                    return new Opened(withSightings(current), false, false, true);
                }
                return sighting(current, request, writer, runId);
            }
            String id = "inc-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            ObjectNode ptr = json.createObjectNode().put("incident", id).put("fingerprint", request.fingerprint());
            if (memory.put(NAMESPACE, pointerKey, ptr.toString(), 0, writer) instanceof WriteOutcome.Written) {
                // Counted before the record exists: a copy arriving meanwhile finds it claimed.
                claimFirst(id, request);
                ObjectNode created = newIncident(id, request, runId);
                WriteOutcome out = putIncident(id, created, 0, writer);
                if (out instanceof WriteOutcome.Written w) {
                    opened(id, created, request, writer);
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
        Escalation e = escalate(
                incident.id(),
                writer,
                "escalated to a human at its first sighting (cadre.incidents.escalate-after=" + settings.escalateAfter()
                        + ")");
        return new Opened(e.incident() == null ? incident : e.incident(), true, e.mine());
    }

    /**
     * One more sighting of an active incident: always on the timeline; on the record (a new version)
     * only when it escalates the incident, links a new run, or the record's {@code lastSeenAt} is
     * older than the sighting write interval. Readers see the exact count either way ({@link #get}).
     */
    private Opened sighting(Incident current, OpenRequest request, Writer writer, @Nullable String runId) {
        String id = current.id();
        ObjectNode data = json.createObjectNode();
        if (request.deliveryKey() != null) {
            data.put("deliveryKey", request.deliveryKey());
        }
        data.put("source", request.source());
        // The record was just read (it names this incident): no need to read it again to know it exists.
        appendKnown(
                id,
                new TimelineEntry(
                        TimelineKind.SIGHTING,
                        writer.id(),
                        "seen again: " + request.title(),
                        data,
                        runId,
                        request.deliveryKey()));
        Incident seen = withSightings(current);
        int sightings = seen.occurrences();
        if (!current.escalated() && sightings >= settings.escalateAfter()) {
            Escalation e = escalate(
                    id,
                    writer,
                    "escalated to a human after " + sightings + " sightings (cadre.incidents.escalate-after="
                            + settings.escalateAfter() + ")");
            if (e.mine() && e.incident() != null) {
                linkRun(runId, id, writer);
                log.warn("Incident {} ({}) escalated after {} sightings", id, request.fingerprint(), sightings);
                return new Opened(e.incident(), false, true);
            }
        }
        Instant recorded = parseInstant(current.value().path("lastSeenAt").asString(""));
        boolean stale = recorded == null
                || !recorded.plus(settings.sightingWriteInterval()).isAfter(clock.instant());
        if (stale || (runId != null && !hasRun(current.value(), runId))) {
            Incident written = modify(id, writer, v -> {
                        rememberDelivery(v, request.deliveryKey());
                        addRun(v, runId);
                        return v;
                    })
                    .orElse(seen);
            linkRun(runId, id, writer);
            return new Opened(written, false, false);
        }
        linkRun(runId, id, writer);
        return new Opened(seen, false, false);
    }

    /** The incident after an escalation attempt, and whether this call escalated it. */
    private record Escalation(@Nullable Incident incident, boolean mine) {}

    /**
     * Escalates an open incident once: the compare-and-set write decides which caller did it, and
     * only that one appends {@link TimelineKind#ESCALATED} and tells the listeners.
     */
    private Escalation escalate(String id, Writer writer, String text) {
        boolean[] mine = {false};
        Optional<Incident> out = modify(id, writer, v -> {
            mine[0] = false;
            if (!Incident.OPEN.equals(v.path("status").asString(Incident.OPEN))
                    || v.path("escalatedAt").isString()) {
                return null;
            }
            v.put("status", Incident.ESCALATED);
            v.put("escalatedAt", now());
            timeline(v, text);
            mine[0] = true;
            return v;
        });
        if (mine[0] && out.isPresent()) {
            appendTimeline(id, TimelineEntry.of(TimelineKind.ESCALATED, writer.id(), text));
            Incident escalated = out.get();
            listeners.forEach(l -> l.escalated(escalated));
        }
        return new Escalation(out.orElse(null), mine[0] && out.isPresent());
    }

    /** Claims the opening notification's delivery key for a new incident (its first sighting). */
    private void claimFirst(String id, OpenRequest request) {
        if (request.deliveryKey() != null) {
            timeline.claimDelivery(id, deliveryKey(request.deliveryKey()), clock.instant(), settings.duplicateWindow());
        }
    }

    /** The OPENED entry of a new incident (its first sighting). */
    private void opened(String id, ObjectNode created, OpenRequest request, Writer writer) {
        ObjectNode data = json.createObjectNode();
        data.put("severity", request.severity());
        data.put("source", request.source());
        if (created.has("target")) {
            data.set("target", created.get("target"));
        }
        if (request.deliveryKey() != null) {
            data.put("deliveryKey", request.deliveryKey());
        }
        // The record was just written: it exists.
        appendKnown(
                id,
                new TimelineEntry(
                        TimelineKind.OPENED,
                        writer.id(),
                        "opened by " + request.source() + ": " + request.title(),
                        data,
                        null,
                        request.deliveryKey()));
    }

    /**
     * The incident, {@code occurrences} and {@code lastSeenAt} as the timeline counts them (the
     * record's copies are rewritten at most once per sighting write interval).
     */
    private Incident withSightings(Incident incident) {
        IncidentTimeline.Sightings s = timeline.sightings(incident.id());
        Instant recorded = parseInstant(incident.value().path("lastSeenAt").asString(""));
        boolean moreSightings = s.count() > incident.occurrences();
        boolean seenLater =
                s.lastSeenAt() != null && (recorded == null || s.lastSeenAt().isAfter(recorded));
        if (!moreSightings && !seenLater) {
            return incident;
        }
        ObjectNode v = incident.value().deepCopy();
        if (moreSightings) {
            v.put("occurrences", (int) Math.min(Integer.MAX_VALUE, s.count()));
        }
        if (seenLater) {
            v.put("lastSeenAt", s.lastSeenAt().toString());
        }
        return new Incident(v, incident.version());
    }

    private static @Nullable Instant parseInstant(String s) {
        try {
            return s.isEmpty() ? null : Instant.parse(s);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /** Delivery keys as stored (long ones by their hash). */
    private static String deliveryKey(String key) {
        return key.length() <= 150 ? key : "sha256:" + sha256(key);
    }

    public Optional<Incident> get(String id) {
        return memory.get(NAMESPACE, id, true)
                .map(e -> withSightings(new Incident((ObjectNode) json.readTree(e.value()), e.version())));
    }

    /** The active incident of a fingerprint. */
    public Optional<Incident> findActive(String fingerprint) {
        return lookup(fingerprint).active();
    }

    /**
     * What one look at a fingerprint found: its pointer and the incident the pointer names (with its
     * sightings), either possibly absent. Handed to {@link #open(OpenRequest, Writer, String, Lookup)} so
     * a caller that already looked does not read the same entries twice.
     */
    public record Lookup(String fingerprint, Optional<MemoryEntry> pointer, Optional<Incident> incident) {

        /** The incident, when it is active. */
        public Optional<Incident> active() {
            return incident.filter(Incident::active);
        }
    }

    /** Reads the fingerprint's pointer and the incident it names, once. */
    public Lookup lookup(String fingerprint) {
        Optional<MemoryEntry> pointer = memory.get(NAMESPACE, pointerKey(fingerprint), true);
        Optional<Incident> incident = pointer.flatMap(
                p -> get(json.readTree(p.value()).path("incident").asString()));
        return new Lookup(fingerprint, pointer, incident);
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
        WriteOutcome link = memory.put(
                NAMESPACE,
                runKey(runId),
                json.createObjectNode().put("incident", incidentId).toString(),
                0,
                writer);
        if (link instanceof WriteOutcome.Written) {
            appendTimeline(
                    incidentId,
                    new TimelineEntry(
                            TimelineKind.RUN_STARTED,
                            writer.id(),
                            "run " + runId + " works on it",
                            null,
                            runId,
                            runId));
        }
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

    /** What {@link #pruneTimeline} removed. */
    public record PrunedTimeline(long events, long deliveries) {}

    /**
     * Retention of the timelines: an incident's entries go once it has been resolved since before
     * {@code eventsBefore} (all of them are older; an active incident, or one resolved later, keeps
     * its whole timeline), and so do those of incidents no longer stored. Delivery keys counted before
     * {@code deliveriesBefore} (the duplicate window ago) go too, except those of resolved incidents
     * still within the timeline retention: a late copy of the notification their alert's resolve
     * ended is recognised by them.
     */
    public PrunedTimeline pruneTimeline(Instant eventsBefore, Instant deliveriesBefore, int batch) {
        java.util.Set<String> kept = new java.util.HashSet<>();
        java.util.Set<String> resolvedLately = new java.util.HashSet<>();
        for (Incident i : list(true, Integer.MAX_VALUE)) {
            if (i.active()) {
                kept.add(i.id());
                continue;
            }
            Instant resolvedAt = parseInstant(i.value().path("resolvedAt").asString(""));
            // No (readable) resolution time: kept, rather than guessed old.
            if (resolvedAt == null || !resolvedAt.isBefore(eventsBefore)) {
                kept.add(i.id());
                resolvedLately.add(i.id());
            }
        }
        long events = timeline.deleteEventsBefore(eventsBefore, kept, batch);
        long deliveries = timeline.deleteDeliveriesBefore(deliveriesBefore, resolvedLately, batch);
        return new PrunedTimeline(events, deliveries);
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
        WriteOutcome out = putIncident(id, next, expectedVersion, writer);
        return switch (out) {
            case WriteOutcome.Written w -> {
                Incident written = new Incident(next, w.version());
                if (note != null) {
                    appendTimeline(id, TimelineEntry.of(TimelineKind.FINDINGS, writer.id(), note));
                }
                if (status != null && !status.equals(current.get().status())) {
                    TimelineKind kind = switch (status) {
                        case Incident.RESOLVED -> TimelineKind.RESOLVED;
                        case Incident.ESCALATED -> TimelineKind.ESCALATED;
                        default -> TimelineKind.REOPENED;
                    };
                    appendTimeline(id, TimelineEntry.of(kind, writer.id(), "status set to " + status));
                }
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
                })
                .map(i -> {
                    if (!i.active()) {
                        appendTimeline(
                                i.id(), TimelineEntry.of(TimelineKind.RESOLVED, writer.id(), "resolved: " + reason));
                    }
                    return i;
                });
    }

    // ---- timeline ----

    /** Longest timeline text kept (one line for people; the structured form is in {@code data}). */
    static final int MAX_TEXT = 500;

    /** Largest timeline {@code data} kept, in characters of its JSON; larger data keeps a preview. */
    static final int MAX_DATA = 16_000;

    /** Longest summary and title kept on the record. */
    static final int MAX_SUMMARY = 4_000;

    static final int MAX_TITLE = 300;

    /**
     * Appends one entry to the incident's timeline: append-only, outside the versioned record, redacted
     * and capped. Never throws for an unknown incident (logs and ignores it).
     */
    public void appendTimeline(String incidentId, TimelineEntry entry) {
        if (memory.get(NAMESPACE, incidentId, true).isEmpty()) {
            log.warn("Timeline entry {} for unknown incident {} ignored", entry.kind(), incidentId);
            return;
        }
        appendKnown(incidentId, entry);
    }

    /**
     * {@link #appendTimeline} for an incident this call has just read or written, without reading its
     * record once more (one shared-memory read less per alert on the intake's path).
     */
    private void appendKnown(String incidentId, TimelineEntry entry) {
        String text = redactor.redactText(entry.text());
        text = capped(text == null ? "" : text.replaceAll("[\\r\\n]+", " ").strip(), MAX_TEXT);
        JsonNode data = entry.data() == null ? null : redactor.redact(entry.data());
        if (data != null && data.toString().length() > MAX_DATA) {
            data = json.createObjectNode()
                    .put("truncated", true)
                    .put("preview", data.toString().substring(0, MAX_DATA / 2));
        }
        try {
            timeline.append(
                    incidentId,
                    clock.instant(),
                    new TimelineEntry(
                            entry.kind(),
                            entry.actor() == null ? null : capped(entry.actor(), 200),
                            text,
                            data,
                            entry.runId(),
                            entry.ref() == null ? null : capped(entry.ref(), 200)));
        } catch (RuntimeException e) {
            // The timeline is a record of what happened, never the reason it did not: an outage of its
            // table must not fail an alert's intake or a remediation.
            log.warn("Timeline entry {} for incident {} not stored: {}", entry.kind(), incidentId, e.toString());
            return;
        }
        timelineWatchers.forEach(Runnable::run);
    }

    /** The incident's timeline after {@code afterSeq} (0 from the start), oldest first, at most {@code limit}. */
    public List<IncidentTimeline.Stored> timeline(String incidentId, long afterSeq, int limit) {
        return timeline.read(incidentId, afterSeq, limit);
    }

    /** The incident's newest timeline entries, newest first, at most {@code limit}. */
    public List<IncidentTimeline.Stored> latestTimeline(String incidentId, int limit) {
        return timeline.latest(incidentId, limit);
    }

    /** Timeline entries of every incident after {@code afterSeq}, oldest first (the live stream). */
    public List<IncidentTimeline.Stored> timelineSince(long afterSeq, int limit) {
        return timeline.since(afterSeq, limit);
    }

    /** Whether the incident's timeline has an entry of {@code kind} with this {@code ref}. */
    public boolean hasTimelineRef(String incidentId, TimelineKind kind, String ref) {
        return timeline.hasRef(incidentId, kind, ref);
    }

    /** The newest timeline sequence number: a live stream's "from now on". */
    public long latestTimelineSeq() {
        return timeline.latestSeq();
    }

    /** Runs {@code watcher} after every entry appended in this process (wakes live streams early). */
    public void watchTimeline(Runnable watcher) {
        timelineWatchers.add(watcher);
    }

    public void unwatchTimeline(Runnable watcher) {
        timelineWatchers.remove(watcher);
    }

    // ---- remediation outcomes and notifications ----

    /**
     * Stores how a remediation ended once verified on the incident's {@code remediations} (action,
     * bound arguments, approver, times, verdict, evidence) and appends {@link
     * TimelineKind#ACTION_VERIFIED}. Only {@code SUCCEEDED} may resolve the incident (the caller
     * decides whether to); any other verdict keeps it open and escalates it. Recording the same
     * verdict for the same call again changes nothing.
     */
    public void recordRemediationOutcome(
            String incidentId,
            String callId,
            String action,
            JsonNode boundArguments,
            RemediationOutcome outcome,
            Writer writer) {
        String verdict = outcome.verdict().name().toLowerCase(java.util.Locale.ROOT);
        boolean[] changed = {false};
        Optional<Incident> written = modify(incidentId, writer, v -> {
            changed[0] = false;
            ArrayNode list = v.has("remediations") && v.get("remediations").isArray()
                    ? (ArrayNode) v.get("remediations")
                    : v.putArray("remediations");
            ObjectNode r = null;
            for (JsonNode each : list) {
                if (callId.equals(each.path("callId").asString()) && each instanceof ObjectNode o) {
                    r = o;
                }
            }
            if (r == null) {
                r = list.addObject().put("callId", callId).put("startedAt", now());
            } else if (verdict.equals(r.path("verdict").asString())) {
                return null;
            }
            r.put("action", action);
            r.set("arguments", redactor.redact(boundArguments));
            r.put("approver", outcome.approver());
            if (!r.has("finishedAt")) {
                r.put("finishedAt", now());
            }
            r.put("verifiedAt", now());
            r.put("verdict", verdict);
            r.put("status", verdict);
            r.put("summary", capped(outcome.summary(), MAX_TEXT));
            JsonNode evidence = outcome.evidence() == null ? null : redactor.redact(outcome.evidence());
            if (evidence != null && evidence.toString().length() > MAX_DATA) {
                evidence = json.createObjectNode()
                        .put("truncated", true)
                        .put("preview", evidence.toString().substring(0, MAX_DATA / 2));
            }
            r.set("evidence", evidence);
            capRemediations(list);
            changed[0] = true;
            return v;
        });
        if (written.isEmpty()) {
            log.warn("Remediation outcome of {} for unknown incident {} ignored", callId, incidentId);
            return;
        }
        if (!changed[0]) {
            return;
        }
        ObjectNode data = json.createObjectNode().put("action", action).put("verdict", verdict);
        data.set("arguments", boundArguments);
        data.set("evidence", outcome.evidence());
        data.put("approver", outcome.approver());
        appendTimeline(
                incidentId,
                new TimelineEntry(
                        TimelineKind.ACTION_VERIFIED,
                        writer.id(),
                        action + ": " + verdictWords(outcome.verdict())
                                + (outcome.summary().isBlank() ? "" : " — " + outcome.summary()),
                        data,
                        writer.run(),
                        callId));
        if (outcome.verdict() != RemediationOutcome.Verdict.SUCCEEDED
                && written.get().active()) {
            escalate(incidentId, writer, "escalated to a human: " + action + " " + verdictWords(outcome.verdict()));
        }
    }

    private static String verdictWords(RemediationOutcome.Verdict v) {
        return switch (v) {
            case SUCCEEDED -> "applied and verified fixed";
            case FAILED -> "failed";
            case TIMED_OUT -> "applied, not verified in time";
            case UNCHANGED -> "applied, not fixed";
            case WORSE -> "applied, made it worse";
        };
    }

    /**
     * Records one notification about the incident on its timeline ({@link
     * TimelineKind#NOTIFICATION_SENT} or {@link TimelineKind#NOTIFICATION_FAILED}; a pending one is
     * not an event). The same delivery recorded again (same id, status and attempt) is one entry.
     */
    public void recordNotification(String incidentId, NotificationRecord n) {
        if (n.status() == NotificationRecord.Status.PENDING) {
            return;
        }
        TimelineKind kind = n.status() == NotificationRecord.Status.SENT
                ? TimelineKind.NOTIFICATION_SENT
                : TimelineKind.NOTIFICATION_FAILED;
        String ref = n.deliveryId() == null ? null : n.deliveryId() + "#" + n.attempts();
        if (ref != null && timeline.hasRef(incidentId, kind, ref)) {
            return;
        }
        ObjectNode data = json.createObjectNode()
                .put("kind", n.kind())
                .put("channel", n.channel())
                .put("status", n.status().name().toLowerCase(java.util.Locale.ROOT))
                .put("attempts", n.attempts())
                .put("error", n.error())
                .put("deliveryId", n.deliveryId());
        String text = n.status() == NotificationRecord.Status.SENT
                ? n.kind() + " notification sent to " + n.channel()
                : n.kind() + " notification to " + n.channel() + " failed (attempt " + n.attempts() + ")"
                        + (n.error() == null ? "" : ": " + n.error());
        appendTimeline(incidentId, new TimelineEntry(kind, "platform", text, data, null, ref));
    }

    // ---- human actions (the REST API checks roles and audits) ----

    /** The incident after a human action, and whether the action changed anything (a repeat does not). */
    public record Acted(Incident incident, boolean changed) {}

    /** Refused: the action does not apply to the incident as it is (answered 409). */
    public static final class ActionConflict extends RuntimeException {
        public ActionConflict(String message) {
            super(message);
        }
    }

    /** Someone takes the incident: recorded once; it stays theirs until assigned to another. */
    public Acted acknowledge(String id, String actor) {
        return act(
                id,
                actor,
                v -> {
                    if (Incident.RESOLVED.equals(v.path("status").asString())) {
                        throw new ActionConflict("incident " + id + " is resolved; reopen it first");
                    }
                    if (v.path("acknowledgedAt").isString()) {
                        return null;
                    }
                    v.put("acknowledgedAt", now());
                    v.put("acknowledgedBy", actor);
                    if (!v.path("assignee").isString()) {
                        v.put("assignee", actor);
                    }
                    return v;
                },
                TimelineEntry.of(TimelineKind.ACKNOWLEDGED, actor, actor + " acknowledged it"));
    }

    /** Gives the incident to {@code assignee}; assigning it to whom it already belongs changes nothing. */
    public Acted assign(String id, String assignee, String actor) {
        return act(
                id,
                actor,
                v -> {
                    if (assignee.equals(v.path("assignee").asString(null))) {
                        return null;
                    }
                    v.put("assignee", assignee);
                    v.put("assignedAt", now());
                    v.put("assignedBy", actor);
                    return v;
                },
                TimelineEntry.of(TimelineKind.ASSIGNED, actor, actor + " assigned it to " + assignee));
    }

    /**
     * A comment on the timeline (never a new version of the record). With {@code requestKey}, a retry
     * carrying the same key is one comment.
     */
    public Acted comment(String id, String text, String actor, @Nullable String requestKey) {
        Incident incident = get(id).orElseThrow(() -> new java.util.NoSuchElementException(id));
        String ref = requestKey == null ? null : "comment:" + capped(requestKey, 150);
        if (ref != null && timeline.hasRef(id, TimelineKind.COMMENTED, ref)) {
            return new Acted(incident, false);
        }
        appendTimeline(id, new TimelineEntry(TimelineKind.COMMENTED, actor, text, null, null, ref));
        return new Acted(incident, true);
    }

    /**
     * Resolves the incident with why it happened and what fixed it. Resolving it again with the same
     * resolution changes nothing; with another one it is refused (reopen it first).
     */
    public Acted resolve(String id, Resolution resolution, String actor) {
        Acted acted = act(
                id,
                actor,
                v -> {
                    if (Incident.RESOLVED.equals(v.path("status").asString())) {
                        JsonNode r = v.path("resolution");
                        if (resolution.rootCause().equals(r.path("rootCause").asString(null))
                                && resolution.fix().equals(r.path("fix").asString(null))) {
                            return null;
                        }
                        throw new ActionConflict("incident " + id + " is already resolved with another resolution;"
                                + " reopen it first");
                    }
                    v.put("status", Incident.RESOLVED);
                    v.put("resolvedAt", now());
                    v.put("resolvedBy", actor);
                    v.putObject("resolution")
                            .put("rootCause", resolution.rootCause())
                            .put("fix", resolution.fix());
                    timeline(v, "resolved by " + actor);
                    return v;
                },
                new TimelineEntry(
                        TimelineKind.RESOLVED,
                        actor,
                        actor + " resolved it: " + resolution.rootCause() + " — fixed by " + resolution.fix(),
                        json.createObjectNode()
                                .put("rootCause", resolution.rootCause())
                                .put("fix", resolution.fix()),
                        null,
                        null));
        if (acted.changed()) {
            dropPointer(acted.incident(), Writer.apiClient(actor));
        }
        return acted;
    }

    /**
     * Opens a resolved incident again. Refused when its alert has opened another active incident
     * since (that one carries on); reopening an active incident changes nothing.
     */
    public Acted reopen(String id, String reason, String actor) {
        Incident current = get(id).orElseThrow(() -> new java.util.NoSuchElementException(id));
        if (current.active()) {
            return new Acted(current, false);
        }
        Optional<Incident> other = findActive(current.fingerprint());
        if (other.isPresent() && !other.get().id().equals(id)) {
            throw new ActionConflict("its alert has opened another active incident since: "
                    + other.get().id());
        }
        Writer writer = Writer.apiClient(actor);
        Acted acted = act(
                id,
                actor,
                v -> {
                    if (!Incident.RESOLVED.equals(v.path("status").asString())) {
                        return null;
                    }
                    v.put("status", Incident.OPEN);
                    v.remove("escalatedAt");
                    v.remove("resolvedByAlert");
                    v.put("reopenedAt", now());
                    v.put("reopenedBy", actor);
                    timeline(v, "reopened by " + actor + ": " + reason);
                    return v;
                },
                TimelineEntry.of(TimelineKind.REOPENED, actor, actor + " reopened it: " + reason));
        if (acted.changed()) {
            // The fingerprint's sightings count on this incident again.
            String key = pointerKey(current.fingerprint());
            ObjectNode ptr = json.createObjectNode().put("incident", id).put("fingerprint", current.fingerprint());
            Optional<MemoryEntry> pointer = memory.get(NAMESPACE, key, true);
            memory.put(
                    NAMESPACE,
                    key,
                    ptr.toString(),
                    pointer.map(MemoryEntry::version).orElse(0L),
                    writer);
        }
        return acted;
    }

    private Acted act(String id, String actor, UnaryOperator<ObjectNode> change, TimelineEntry entry) {
        boolean[] changed = {false};
        Optional<Incident> out = modify(id, Writer.apiClient(actor), v -> {
            ObjectNode next = change.apply(v);
            changed[0] = next != null;
            return next;
        });
        Incident incident = out.orElseThrow(() -> new java.util.NoSuchElementException(id));
        if (changed[0]) {
            appendTimeline(id, entry);
        }
        return new Acted(incident, changed[0]);
    }

    private static String capped(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
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
            if (putIncident(incidentId, next, current.version(), writer) instanceof WriteOutcome.Written w) {
                return new Claim.Granted(new Incident(next, w.version()));
            }
        }
        throw new IllegalStateException("incident " + incidentId + " kept changing under " + RETRIES + " attempts");
    }

    /** Records how a granted remediation ended. */
    public void finishRemediation(
            String incidentId, String callId, String status, @Nullable Integer exitCode, Writer writer) {
        String[] runbook = {null};
        modify(incidentId, writer, v -> {
            for (JsonNode r : v.path("remediations")) {
                if (callId.equals(r.path("callId").asString()) && r instanceof ObjectNode o) {
                    runbook[0] = r.path("runbook").asString(r.path("action").asString("action"));
                    o.put("status", status);
                    o.put("finishedAt", now());
                    if (exitCode != null) {
                        o.put("exitCode", exitCode);
                    }
                }
            }
            return v;
        });
        if (runbook[0] != null && !timeline.hasRef(incidentId, TimelineKind.ACTION_EXECUTED, callId)) {
            appendTimeline(
                    incidentId,
                    new TimelineEntry(
                            TimelineKind.ACTION_EXECUTED,
                            writer.id(),
                            runbook[0] + " ran: " + status + (exitCode == null ? "" : " (exit code " + exitCode + ")"),
                            null,
                            writer.run(),
                            callId));
        }
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
            if (putIncident(id, next, current.get().version(), writer) instanceof WriteOutcome.Written w) {
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
        v.put("title", capped(request.title(), MAX_TITLE));
        v.put("severity", request.severity());
        v.put("status", Incident.OPEN);
        v.put("source", request.source());
        ObjectNode labels = v.putObject("labels");
        request.labels().forEach(labels::put);
        if (request.summary() != null) {
            v.put("summary", capped(request.summary(), MAX_SUMMARY));
        }
        if (request.target() != null) {
            ObjectNode t = v.putObject("target");
            t.put("kind", request.target().kind().name().toLowerCase(java.util.Locale.ROOT));
            t.put("name", request.target().name());
            t.put("namespace", request.target().namespace());
            t.put("instance", request.target().instance());
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
