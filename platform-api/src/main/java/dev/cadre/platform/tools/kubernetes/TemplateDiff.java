package dev.cadre.platform.tools.kubernetes;

import dev.cadre.agent.telemetry.SecretMasker;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every difference between two pod templates, as short lines a person reads before approving a
 * rollout: per container its image, command and args, each env variable added, removed or changed
 * (values of secret-looking variables redacted), securityContext, volume mounts, resources and any
 * other field; per pod its volumes, securityContext, service account and every other spec field, and
 * its labels and annotations. Nothing of the template is left out of the comparison: a field it does
 * not know by name is still listed with its values (masked, clipped).
 */
final class TemplateDiff {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final SecretMasker MASKER = SecretMasker.standard();
    /** The ReplicaSet's own label: differs between every two revisions, never a change of the deployment. */
    private static final String HASH_LABEL = "pod-template-hash";

    /** A container's fields a person looks at first, in this order; the rest follow as the object has them. */
    private static final List<String> FIRST = List.of("image", "command", "args", "env", "securityContext");

    private TemplateDiff() {}

    /** What changes from {@code before} to {@code after}, one line per difference. */
    static List<String> changes(@Nullable PodTemplateSpec before, @Nullable PodTemplateSpec after) {
        JsonNode a = tree(before);
        JsonNode b = tree(after);
        List<String> out = new ArrayList<>();
        map(
                out,
                "pod label",
                a.path("metadata").path("labels"),
                b.path("metadata").path("labels"));
        map(
                out,
                "pod annotation",
                a.path("metadata").path("annotations"),
                b.path("metadata").path("annotations"));
        JsonNode sa = a.path("spec");
        JsonNode sb = b.path("spec");
        containers(out, "container", sa.path("containers"), sb.path("containers"));
        containers(out, "init container", sa.path("initContainers"), sb.path("initContainers"));
        for (String field : fields(sa, sb)) {
            if (field.equals("containers") || field.equals("initContainers")) {
                continue;
            }
            if (!same(sa.path(field), sb.path(field))) {
                out.add("pod " + field + ": " + show(sa.path(field)) + " → " + show(sb.path(field)));
            }
        }
        return out;
    }

    /** A short hash of a template: what an approval of a rollback binds, and a patch of it changes. */
    static String hash(@Nullable PodTemplateSpec template) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(SERIALIZATION.asJson(template).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode tree(@Nullable PodTemplateSpec t) {
        return t == null ? JSON.createObjectNode() : JSON.readTree(SERIALIZATION.asJson(t));
    }

    private static void containers(List<String> out, String what, JsonNode before, JsonNode after) {
        Map<String, JsonNode> a = byName(before);
        Map<String, JsonNode> b = byName(after);
        for (var e : b.entrySet()) {
            String name = e.getKey();
            JsonNode y = e.getValue();
            JsonNode x = a.get(name);
            if (x == null) {
                out.add(what + " " + name + " added: " + show(withEnvMasked(y)));
                continue;
            }
            Set<String> ordered = new LinkedHashSet<>(FIRST);
            ordered.addAll(fields(x, y));
            for (String field : ordered) {
                if (field.equals("name") || same(x.path(field), y.path(field))) {
                    continue;
                }
                if (field.equals("env")) {
                    out.add("env " + name + ": " + String.join(", ", env(x.path("env"), y.path("env"))));
                } else if (field.equals("image")) {
                    out.add("image " + name + ": " + x.path("image").asString("none") + " → "
                            + y.path("image").asString("none"));
                } else {
                    out.add(field + " " + name + ": " + show(x.path(field)) + " → " + show(y.path(field)));
                }
            }
        }
        for (String name : a.keySet()) {
            if (!b.containsKey(name)) {
                out.add(what + " " + name + " removed");
            }
        }
    }

    /** Env changes of one container: {@code +NAME=value}, {@code -NAME}, {@code NAME: old → new}. */
    private static List<String> env(JsonNode before, JsonNode after) {
        Map<String, String> a = envValues(before);
        Map<String, String> b = envValues(after);
        Map<String, JsonNode> rawA = byName(before);
        Map<String, JsonNode> rawB = byName(after);
        List<String> out = new ArrayList<>();
        b.forEach((name, value) -> {
            if (!a.containsKey(name)) {
                out.add("+" + name + "=" + value);
            } else if (!rawA.get(name).equals(rawB.get(name))) {
                // Compared as stored, shown redacted: two secrets differ even when both read [REDACTED].
                out.add(name + ": " + a.get(name) + " → " + value
                        + (a.get(name).equals(value) ? " (value changed)" : ""));
            }
        });
        a.keySet().stream().filter(n -> !b.containsKey(n)).forEach(n -> out.add("-" + n));
        if (out.isEmpty()) {
            out.add("order of variables changed");
        }
        return out;
    }

    /**
     * Each variable's value as shown: its literal (redacted when the name looks secret, masked when the
     * value does), or where it comes from ({@code from secret db/password}).
     */
    private static Map<String, String> envValues(JsonNode env) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode e : env) {
            String name = e.path("name").asString();
            String value;
            if (e.has("valueFrom")) {
                JsonNode from = e.path("valueFrom");
                if (from.has("secretKeyRef")) {
                    value = "(from secret "
                            + from.path("secretKeyRef").path("name").asString() + "/"
                            + from.path("secretKeyRef").path("key").asString() + ")";
                } else if (from.has("configMapKeyRef")) {
                    value = "(from configmap "
                            + from.path("configMapKeyRef").path("name").asString() + "/"
                            + from.path("configMapKeyRef").path("key").asString() + ")";
                } else {
                    value = "(from " + clip(from.toString(), 120) + ")";
                }
            } else if (SecretMasker.secretKey(name)) {
                value = e.has("value") ? SecretMasker.MASK : "";
            } else {
                value = clip(MASKER.redact("k8s", e.path("value").asString("")), 120);
            }
            out.put(name, value);
        }
        return out;
    }

    /** A container as shown when added: its env values redacted as above. */
    private static JsonNode withEnvMasked(JsonNode container) {
        if (!container.has("env")) {
            return container;
        }
        var copy = container.deepCopy();
        var env = JSON.createObjectNode();
        envValues(container.path("env")).forEach(env::put);
        ((tools.jackson.databind.node.ObjectNode) copy).set("env", env);
        return copy;
    }

    private static void map(List<String> out, String what, JsonNode before, JsonNode after) {
        for (String key : fields(before, after)) {
            if (key.equals(HASH_LABEL)) {
                continue;
            }
            JsonNode x = before.path(key);
            JsonNode y = after.path(key);
            if (x.isMissingNode()) {
                out.add(what + " +" + key + "=" + clip(y.asString(), 120));
            } else if (y.isMissingNode()) {
                out.add(what + " -" + key);
            } else if (!x.equals(y)) {
                out.add(what + " " + key + ": " + clip(x.asString(), 120) + " → " + clip(y.asString(), 120));
            }
        }
    }

    private static Map<String, JsonNode> byName(JsonNode list) {
        Map<String, JsonNode> m = new LinkedHashMap<>();
        for (JsonNode c : list) {
            m.put(c.path("name").asString(), c);
        }
        return m;
    }

    private static Set<String> fields(JsonNode a, JsonNode b) {
        Set<String> names = new LinkedHashSet<>();
        if (a.isObject()) {
            names.addAll(a.propertyNames());
        }
        if (b.isObject()) {
            names.addAll(b.propertyNames());
        }
        return names;
    }

    /** Missing, null, empty list and empty object are the same: "none". */
    private static boolean same(JsonNode a, JsonNode b) {
        return empty(a) ? empty(b) : a.equals(b);
    }

    private static boolean empty(JsonNode n) {
        return n.isMissingNode() || n.isNull() || ((n.isArray() || n.isObject()) && n.isEmpty());
    }

    /** A value as a person reads it: compact JSON, masked where it looks secret, at most 240 characters. */
    private static String show(JsonNode n) {
        if (empty(n)) {
            return "none";
        }
        String text = n.isString() ? n.asString() : n.toString();
        return clip(MASKER.redact("k8s", text), 240);
    }

    private static String clip(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
