package dev.cadre.platform.recall;

import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.recall.FailureClasses.FailureClass;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The labelled retrieval set, generated from {@link FailureClasses} with a seeded {@link Random}:
 * past incidents (resolved, with root cause, fix and a verified action) on hosts, pods and services
 * drawn from pools, and queries — open incidents of the same classes elsewhere, in words the past
 * incidents never used. A query's correct matches are the past incidents of its class. The same
 * seed gives the same set byte for byte ({@code src/test/resources/recall/labelled-set.json} is it,
 * committed for review; {@code RecallDatasetTest} checks they agree).
 */
final class RecallDataset {

    static final long SEED = 35;
    static final String RESOURCE = "/recall/labelled-set.json";

    /** One labelled incident: its failure class and its stored value. */
    record Labelled(String failureClass, ObjectNode incident) {
        Incident asIncident() {
            return new Incident(incident, 1);
        }
    }

    record Set_(List<Labelled> past, List<Labelled> queries) {
        /** Ids of the past incidents of each class. */
        Map<String, Set<String>> relevant() {
            return past.stream()
                    .collect(Collectors.groupingBy(
                            Labelled::failureClass,
                            Collectors.mapping(l -> l.incident().path("id").asString(), Collectors.toSet())));
        }
    }

    private static final List<String> HOSTS = List.of(
            "web", "api", "db", "cache", "build-agent", "worker", "edge", "batch", "search", "mq", "mail", "vpn");
    private static final List<String> SERVICES = List.of(
            "checkout",
            "cart",
            "payments",
            "search",
            "orders",
            "auth",
            "billing",
            "inventory",
            "reports",
            "gateway",
            "catalog",
            "shipping",
            "notifications",
            "profile");
    private static final List<String> NAMESPACES =
            List.of("shop", "payments", "platform", "data", "staging", "prod-eu", "prod-us", "internal");
    private static final List<String> NOISE = List.of(
            "CPU utilisation {n}% over 300 ms, normal",
            "memory {n}% used, nothing unusual",
            "no recent deploys in the last {n} hours",
            "network errors 0 on all interfaces",
            "the alert fired {n} minutes ago");
    private static final List<String> PEOPLE = List.of("alice", "bob", "chen", "dana", "eve", "farid");

    private final JsonMapper json;
    private final Random random;
    private final Instant start = Instant.parse("2026-01-05T00:00:00Z");

    RecallDataset(JsonMapper json, long seed) {
        this.json = json;
        this.random = new Random(seed);
    }

    /** {@code pastPerClass} resolved incidents and {@code queriesPerClass} queries of every class. */
    Set_ generate(int pastPerClass, int queriesPerClass) {
        List<Labelled> past = new ArrayList<>();
        List<Labelled> queries = new ArrayList<>();
        generate(pastPerClass, queriesPerClass, past::add, queries::add);
        return new Set_(past, queries);
    }

    /** The same set, streamed: the benchmark's 100k past incidents are never all on the heap at once. */
    void generate(
            int pastPerClass,
            int queriesPerClass,
            java.util.function.Consumer<Labelled> past,
            java.util.function.Consumer<Labelled> queries) {
        int total = pastPerClass * FailureClasses.ALL.size();
        int n = 0;
        for (int i = 0; i < pastPerClass; i++) {
            for (FailureClass c : FailureClasses.ALL) {
                Instant opened = start.plusSeconds((long) (n++ * (300.0 * 86400 / Math.max(total, 1))));
                past.accept(new Labelled(c.id(), incident(c, true, opened)));
            }
        }
        for (int i = 0; i < queriesPerClass; i++) {
            for (FailureClass c : FailureClasses.ALL) {
                queries.accept(new Labelled(c.id(), incident(c, false, start.plus(Duration.ofDays(310)))));
            }
        }
    }

    ObjectNode incident(FailureClass c, boolean past, Instant opened) {
        ObjectNode v = json.createObjectNode();
        String id = "inc-" + HexFormat.of().toHexDigits(random.nextLong());
        v.put("id", id);
        String alert = pick(c.alerts());
        ObjectNode labels = json.createObjectNode();
        labels.put("alertname", alert);
        labels.put("severity", pick(List.of("warning", "critical", "high")));
        ObjectNode target = json.createObjectNode();
        String where;
        String service = pick(SERVICES);
        switch (c.kind()) {
            case "HOST" -> {
                String host = pick(HOSTS) + "-" + (1 + random.nextInt(40));
                labels.put("instance", host + ":9100");
                labels.put("job", "node");
                target.put("kind", "HOST").put("name", host).put("instance", host + ":9100");
                where = host + ":9100";
            }
            case "POD", "DEPLOYMENT" -> {
                String ns = pick(NAMESPACES);
                String pod = service + "-" + hex(5) + "-" + hex(5);
                labels.put("namespace", ns);
                labels.put("pod", pod);
                labels.put("deployment", service);
                target.put("kind", c.kind())
                        .put("name", c.kind().equals("POD") ? pod : service)
                        .put("namespace", ns);
                where = c.kind().equals("POD") ? pod : service;
            }
            default -> {
                labels.put("service", service);
                labels.put("job", service);
                target.put("kind", "SERVICE").put("name", service);
                where = service;
            }
        }
        v.put("title", alert + " on " + where);
        v.put("severity", labels.path("severity").asString());
        v.put("source", "alertmanager");
        v.set("labels", labels);
        v.set("target", target);
        List<String> summaries = past
                ? c.summaries().subList(0, FailureClasses.PAST_SUMMARIES)
                : c.summaries()
                        .subList(FailureClasses.PAST_SUMMARIES, c.summaries().size());
        v.put("summary", fill(pick(summaries)));
        List<String> findings = past
                ? c.findings().subList(0, FailureClasses.PAST_FINDINGS)
                : c.findings()
                        .subList(FailureClasses.PAST_FINDINGS, c.findings().size());
        ArrayNode f = v.putArray("findings");
        if (random.nextInt(3) == 0) {
            f.addObject()
                    .put("category", "info")
                    .put("description", fill(pick(NOISE)))
                    .put("evidence", "");
        }
        f.addObject()
                .put("category", c.id().split("-")[0])
                .put("description", fill(pick(findings)))
                .put("evidence", "");
        v.put("openedAt", opened.toString());
        v.put("occurrences", 1);
        if (past) {
            Instant resolved = opened.plus(Duration.ofMinutes(5 + random.nextInt(240)));
            v.put("status", Incident.RESOLVED);
            v.put("resolvedAt", resolved.toString());
            String who = pick(PEOPLE);
            v.putObject("resolution")
                    .put("rootCause", pick(c.causes()))
                    .put("fix", pick(c.fixes()))
                    .put("by", who)
                    .put("at", resolved.toString());
            v.putArray("remediations")
                    .addObject()
                    .put("action", c.action())
                    .put("verdict", "SUCCEEDED")
                    .put("summary", "verified: the alert condition cleared")
                    .put("approver", who);
        } else {
            v.put("status", Incident.OPEN);
        }
        return v;
    }

    /** The set as the committed JSON document. */
    JsonNode toJson(Set_ set) {
        ObjectNode root = json.createObjectNode();
        root.put("seed", SEED);
        root.put("classes", FailureClasses.ALL.size());
        ArrayNode past = root.putArray("past");
        set.past().forEach(l -> past.addObject().put("class", l.failureClass()).set("incident", l.incident()));
        ArrayNode queries = root.putArray("queries");
        set.queries()
                .forEach(l -> queries.addObject().put("class", l.failureClass()).set("incident", l.incident()));
        return root;
    }

    static Set_ fromJson(JsonNode root) {
        List<Labelled> past = new ArrayList<>();
        root.path("past")
                .forEach(n -> past.add(new Labelled(n.path("class").asString(), (ObjectNode) n.path("incident"))));
        List<Labelled> queries = new ArrayList<>();
        root.path("queries")
                .forEach(n -> queries.add(new Labelled(n.path("class").asString(), (ObjectNode) n.path("incident"))));
        return new Set_(past, queries);
    }

    private String fill(String template) {
        String out = template;
        while (out.contains("{pct}")) {
            out = out.replaceFirst("\\{pct}", String.valueOf(80 + random.nextInt(20)));
        }
        while (out.contains("{n}")) {
            out = out.replaceFirst("\\{n}", String.valueOf(2 + random.nextInt(900)));
        }
        return out;
    }

    private String hex(int n) {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private <T> T pick(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }
}
