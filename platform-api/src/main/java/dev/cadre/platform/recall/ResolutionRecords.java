package dev.cadre.platform.recall;

import dev.cadre.agent.workflow.Finding;
import dev.cadre.agent.workflow.FindingsText;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.TimelineEntry;
import dev.cadre.platform.incidents.TimelineKind;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Reads a {@link ResolutionRecord} out of an incident's stored value, and renders the two texts the
 * index keeps of it: the symptoms (what a new incident can be compared with) and the cause (what
 * fixed it). Names of the affected host, pod or service are left out of both: the same failure on
 * another host is the recurrence worth finding, and a host's name would only pull in unrelated
 * incidents of the same host.
 */
public final class ResolutionRecords {

    /** Labels that name where an incident happened, not what happened. */
    static final Set<String> IDENTITY_LABELS = Set.of(
            "instance",
            "host",
            "hostname",
            "node",
            "nodename",
            "pod",
            "pod_name",
            "namespace",
            "service",
            "job",
            "deployment",
            "app",
            "app.kubernetes.io/name",
            "app.kubernetes.io/instance",
            "container",
            "prometheus",
            "replica",
            "endpoint",
            "cluster",
            "severity",
            "alertname",
            "uid",
            "team");

    private static final Pattern CAMEL = Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");

    private ResolutionRecords() {}

    /** The record of an incident (resolved or not: an open one is a query, a resolved one a memory). */
    public static ResolutionRecord from(Incident incident) {
        return from(incident, List.of());
    }

    /**
     * As {@link #from(Incident)}, with the incident's timeline: the findings a team wrote there as
     * notes (a team that never passed findings to the incident itself, like the Kubernetes team, leaves
     * them only there) and people's comments count as symptoms too.
     */
    public static ResolutionRecord from(Incident incident, List<TimelineEntry> timeline) {
        JsonNode v = incident.value();
        Map<String, String> labels = new LinkedHashMap<>();
        v.path("labels")
                .properties()
                .forEach(e -> labels.put(e.getKey(), e.getValue().asString("")));
        JsonNode target = v.path("target");
        String kind = text(target.path("kind")).toUpperCase(Locale.ROOT);
        if (kind.isEmpty()) {
            kind = kindFromLabels(labels);
        }
        String targetName = text(target.path("name"));
        if (targetName.isEmpty()) {
            targetName = firstLabel(labels, "pod", "deployment", "nodename", "node", "host", "instance", "service");
            targetName = kind.equals("HOST") ? targetName.replaceFirst(":\\d+$", "") : targetName;
        }
        String namespace = text(target.path("namespace"));
        if (namespace.isEmpty()) {
            namespace = labels.getOrDefault("namespace", "");
        }
        String service = firstLabel(labels, "service", "app.kubernetes.io/name", "app", "deployment", "job");
        if (service.isEmpty() && (kind.equals("SERVICE") || kind.equals("DEPLOYMENT"))) {
            service = targetName;
        }
        String alertName = labels.getOrDefault("alertname", "");
        if (alertName.isEmpty()) {
            alertName = text(v.path("title")).split(" on ", 2)[0];
        }
        JsonNode resolution = v.path("resolution");
        String resolvedBy = text(resolution.path("by"));
        if (resolvedBy.isEmpty()) {
            resolvedBy = text(resolution.path("actor"));
        }
        if (resolvedBy.isEmpty()) {
            resolvedBy = text(v.path("resolvedBy"));
        }
        return new ResolutionRecord(
                incident.id(),
                incident.version(),
                text(v.path("title")),
                alertName,
                kind.isEmpty() ? "UNKNOWN" : kind,
                targetName,
                service,
                namespace,
                labels,
                text(v.path("summary")),
                withTimeline(findings(v), timeline),
                text(resolution.path("rootCause")),
                text(resolution.path("fix")),
                actions(v),
                instant(v.path("openedAt")) == null ? Instant.EPOCH : instant(v.path("openedAt")),
                Incident.RESOLVED.equals(incident.status()) ? instant(v.path("resolvedAt")) : null,
                resolvedBy.isEmpty() ? null : resolvedBy);
    }

    /**
     * What happened, in words: the alert's name split into words, its title and summary, the labels that
     * describe the failure (mount point, reason, …) and the findings with their evidence.
     */
    public static String symptoms(ResolutionRecord r) {
        StringBuilder s = new StringBuilder();
        s.append(words(r.alertName())).append(". ");
        append(s, r.title());
        append(s, r.summary());
        r.labels().forEach((k, val) -> {
            if (!IDENTITY_LABELS.contains(k) && !val.isBlank() && val.length() <= 120) {
                s.append(k.replace('_', ' ')).append(' ').append(val).append(". ");
            }
        });
        for (ResolutionRecord.Finding f : r.findings()) {
            append(s, f.description());
            append(s, f.evidence());
        }
        return strip(s.toString().strip(), r);
    }

    /** Why it happened and what fixed it, with the actions that were verified to work. */
    public static String cause(ResolutionRecord r) {
        StringBuilder s = new StringBuilder();
        append(s, r.rootCause());
        append(s, r.fix());
        for (ResolutionRecord.Action a : r.actions()) {
            if (a.verdict().equalsIgnoreCase("SUCCEEDED")) {
                append(s, a.action().replace('-', ' ').replace('_', ' '));
            }
        }
        return strip(s.toString().strip(), r);
    }

    /** {@code HostOutOfDiskSpace} → {@code Host Out Of Disk Space}. */
    static String words(String name) {
        return CAMEL.matcher(name.replace('_', ' ')).replaceAll(" ");
    }

    /** Removes where the incident happened (host, pod, service names) from a text about it. */
    private static String strip(String text, ResolutionRecord r) {
        List<String> names = new ArrayList<>();
        for (String k : List.of("instance", "host", "hostname", "node", "nodename", "pod", "pod_name", "deployment")) {
            String val = r.labels().get(k);
            if (val != null && val.length() >= 3) {
                names.add(val);
                names.add(val.replaceFirst(":\\d+$", ""));
            }
        }
        if (r.targetName().length() >= 3) {
            names.add(r.targetName());
        }
        names.sort(Comparator.comparingInt(String::length).reversed());
        String out = text;
        for (String n : names) {
            out = out.replace(n, " ");
        }
        return out.replaceAll(" on +([.,]|$)", "$1").replaceAll("\\s+", " ").strip();
    }

    private static void append(StringBuilder s, String text) {
        if (!text.isBlank()) {
            s.append(text.strip());
            char last = text.strip().charAt(text.strip().length() - 1);
            s.append(last == '.' || last == '!' || last == '?' ? " " : ". ");
        }
    }

    private static List<ResolutionRecord.Finding> findings(JsonNode v) {
        List<ResolutionRecord.Finding> out = new ArrayList<>();
        JsonNode list = v.path("findings").isArray()
                ? v.path("findings")
                : v.path("resolution").path("findings");
        for (JsonNode f : list) {
            JsonNode evidence = f.path("evidence");
            out.add(new ResolutionRecord.Finding(
                    text(f.path("category")),
                    text(f.path("description")),
                    evidence.isString() ? evidence.asString() : evidence.isMissingNode() ? "" : evidence.toString()));
        }
        return out;
    }

    /** Most timeline entries read per incident: its notes, not its every sighting. */
    static final int TIMELINE_ENTRIES = 200;

    /**
     * The findings of the record and, after them, those of the timeline's notes (standard findings in
     * them, else the note as it reads) and comments; one description once.
     */
    private static List<ResolutionRecord.Finding> withTimeline(
            List<ResolutionRecord.Finding> own, List<TimelineEntry> timeline) {
        List<ResolutionRecord.Finding> out = new ArrayList<>(own);
        Set<String> seen = new HashSet<>();
        own.forEach(f -> seen.add(f.description()));
        for (TimelineEntry e : timeline) {
            if (e.kind() == TimelineKind.FINDINGS) {
                List<Finding> parsed = e.data() != null ? FindingsText.extract(e.data()) : List.of();
                if (parsed.isEmpty()) {
                    parsed = FindingsText.extract(e.text());
                }
                if (parsed.isEmpty()) {
                    add(out, seen, new ResolutionRecord.Finding("note", e.text(), ""));
                }
                for (Finding f : parsed) {
                    add(out, seen, new ResolutionRecord.Finding(f.category(), f.description(), f.suggestion()));
                }
            } else if (e.kind() == TimelineKind.COMMENTED) {
                add(out, seen, new ResolutionRecord.Finding("comment", e.text(), ""));
            }
        }
        return out;
    }

    private static void add(List<ResolutionRecord.Finding> out, Set<String> seen, ResolutionRecord.Finding f) {
        if (!f.description().isBlank() && seen.add(f.description())) {
            out.add(f);
        }
    }

    private static List<ResolutionRecord.Action> actions(JsonNode v) {
        List<ResolutionRecord.Action> out = new ArrayList<>();
        for (JsonNode r : v.path("remediations")) {
            String action = text(r.path("action"));
            if (action.isEmpty()) {
                action = text(r.path("runbook"));
            }
            String verdict = text(r.path("verdict"));
            if (verdict.isEmpty()) {
                verdict = text(r.path("outcome").path("verdict"));
            }
            if (verdict.isEmpty()) {
                verdict = text(r.path("status"));
            }
            String summary = text(r.path("summary"));
            if (summary.isEmpty()) {
                summary = text(r.path("outcome").path("summary"));
            }
            if (!action.isEmpty()) {
                out.add(new ResolutionRecord.Action(action, verdict.toUpperCase(Locale.ROOT), summary));
            }
        }
        return out;
    }

    private static String kindFromLabels(Map<String, String> labels) {
        if (labels.containsKey("pod")) {
            return "POD";
        }
        if (labels.containsKey("deployment")) {
            return "DEPLOYMENT";
        }
        if (labels.containsKey("instance")
                || labels.containsKey("host")
                || labels.containsKey("node")
                || labels.containsKey("nodename")) {
            return "HOST";
        }
        if (labels.containsKey("service")) {
            return "SERVICE";
        }
        return "UNKNOWN";
    }

    private static String firstLabel(Map<String, String> labels, String... keys) {
        for (String k : keys) {
            String val = labels.get(k);
            if (val != null && !val.isBlank()) {
                return val;
            }
        }
        return "";
    }

    private static String text(JsonNode n) {
        return n.isValueNode() ? n.asString("").strip() : "";
    }

    private static @Nullable Instant instant(JsonNode n) {
        String s = text(n);
        if (s.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
