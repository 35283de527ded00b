package dev.cadre.platform.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Offline validation of the deploy kit (deploy/, Dockerfile, docs/deploy.md and
 * docs/configuration.md): no Docker engine or cluster is needed. Every file parses, and the
 * references between files resolve — compose services, volumes and mounted files, Prometheus
 * targets, the collector and Tempo wiring, Grafana provisioning and the dashboard's PromQL, the
 * Kubernetes manifests and their kustomization.
 */
class DeployKitTest {

    /** The Prometheus metric families the platform exports (CadreMetrics; issue 6). */
    static final Set<String> EXPORTED_METRICS = Set.of(
            "cadre_runs_total",
            "cadre_run_duration_seconds",
            "cadre_agent_invocations_total",
            "cadre_agent_duration_seconds",
            "cadre_tokens_total",
            "cadre_tool_calls_total",
            "cadre_tool_duration_seconds",
            "cadre_failures_total",
            "cadre_memory_operations_total",
            "cadre_memory_conflicts_total",
            "cadre_approvals_pending",
            "cadre_approvals_oldest_pending_age_seconds",
            "cadre_runs_oldest_working_age_seconds",
            "cadre_approval_decision_seconds",
            "cadre_runs_queued",
            "cadre_delegations_total",
            "cadre_delegations_useful_total",
            "cadre_misroutes_total");

    /** Those of {@link #EXPORTED_METRICS} that are histograms (series _bucket, _sum, _count). */
    static final Set<String> HISTOGRAMS = Set.of(
            "cadre_run_duration_seconds",
            "cadre_agent_duration_seconds",
            "cadre_tool_duration_seconds",
            "cadre_approval_decision_seconds");

    static final Path ROOT = findRepositoryRoot();
    static final Path DEPLOY = ROOT.resolve("deploy");
    static final Path COMPOSE_DIR = DEPLOY.resolve("compose");

    static final YAMLMapper YAML = YAMLMapper.builder().build();
    static final JsonMapper JSON = JsonMapper.builder().build();

    // ------------------------------------------------------------------------------------------
    // Files

    @Test
    void everyYamlAndJsonFileUnderDeployParsesIncludingMultiDocumentYaml() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(DEPLOY)) {
            files = walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().matches(".*\\.(ya?ml|json)$"))
                    .sorted()
                    .toList();
        }
        assertThat(files).as("YAML/JSON files under deploy/").hasSizeGreaterThanOrEqualTo(15);
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            try {
                if (file.toString().endsWith(".json")) {
                    JSON.readTree(Files.readString(file));
                } else {
                    yamlDocuments(file);
                }
            } catch (RuntimeException e) {
                broken.add(ROOT.relativize(file) + ": " + e.getMessage());
            }
        }
        assertThat(broken).as("files that do not parse").isEmpty();
        assertThat(yamlDocuments(DEPLOY.resolve("k8s/configmap.yaml")))
                .as("configmap.yaml holds several documents")
                .hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void shippedAgentFilesAreTheBuiltInTeamsTheyCopy() {
        // deploy/agents/ops-team.yaml once drifted into an older team than the one the platform ships;
        // a deployed team of the same file name must be the same team (comments aside).
        Path builtIn = ROOT.resolve("platform-api/src/main/resources/agents");
        List<Path> shipped = agentFiles(DEPLOY.resolve("agents"));
        assertThat(shipped).extracting(p -> p.getFileName().toString()).contains("ops-team.yaml");
        for (Path f : shipped) {
            Path original = builtIn.resolve(f.getFileName().toString());
            if (Files.exists(original)) {
                assertThat(yaml(f))
                        .as("%s is the team of %s", ROOT.relativize(f), ROOT.relativize(original))
                        .isEqualTo(yaml(original));
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Compose

    @Nested
    class Compose {

        final JsonNode compose = yaml(COMPOSE_DIR.resolve("compose.yaml"));
        final JsonNode services = compose.path("services");

        /** Platform instances (services with a CADRE_INSTANCE_ID) and their environment. */
        Map<String, Map<String, String>> platformServices() {
            Map<String, Map<String, String>> out = new LinkedHashMap<>();
            for (var e : services.properties()) {
                Map<String, String> env = env(e.getValue());
                if (env.containsKey("CADRE_INSTANCE_ID")) {
                    out.put(e.getKey(), env);
                }
            }
            return out;
        }

        /** Container ports a service listens on, from expose and the container side of ports. */
        Set<Integer> exposedPorts(String service) {
            assertThat(services.has(service)).as("compose service %s", service).isTrue();
            Set<Integer> out = new TreeSet<>();
            JsonNode s = services.path(service);
            s.path("expose").forEach(p -> out.add(Integer.parseInt(p.asString().replaceAll("/.*", ""))));
            for (JsonNode p : s.path("ports")) {
                String spec = p.isObject() ? p.path("target").asString() : p.asString();
                out.add(Integer.parseInt(
                        spec.substring(spec.lastIndexOf(':') + 1).replaceAll("/.*", "")));
            }
            return out;
        }

        @Test
        void everyServiceHasAHealthcheckOrADocumentedReasonWhyNot() {
            assertThat(services.propertyNames())
                    .contains("postgres", "redis", "prometheus", "grafana", "tempo", "otel-collector");
            for (var e : services.properties()) {
                JsonNode test = e.getValue().path("healthcheck").path("test");
                boolean probed = !test.isMissingNode()
                        && !test.toString().contains("NONE")
                        && !e.getValue().path("healthcheck").path("disable").asBoolean(false);
                String reason = e.getValue().path("x-healthcheck-exempt").asString("");
                assertThat(probed || reason.length() > 20)
                        .as("service %s needs a healthcheck or an x-healthcheck-exempt reason", e.getKey())
                        .isTrue();
            }
        }

        @Test
        void everyDependencyExistsAndHealthyConditionsPointAtProbedServices() {
            for (var e : services.properties()) {
                JsonNode deps = e.getValue().path("depends_on");
                Map<String, String> conditions = new LinkedHashMap<>();
                if (deps.isArray()) {
                    deps.forEach(d -> conditions.put(d.asString(), "service_started"));
                } else {
                    deps.properties()
                            .forEach(d -> conditions.put(
                                    d.getKey(), d.getValue().path("condition").asString("service_started")));
                }
                conditions.forEach((target, condition) -> {
                    assertThat(services.has(target))
                            .as("%s depends on %s, which is no service", e.getKey(), target)
                            .isTrue();
                    if (condition.equals("service_healthy")) {
                        assertThat(services.path(target).has("healthcheck"))
                                .as("%s waits for %s to be healthy, but it has no healthcheck", e.getKey(), target)
                                .isTrue();
                    }
                });
            }
        }

        @Test
        void everyNamedVolumeIsDeclaredAndEveryDeclaredVolumeIsUsed() {
            Set<String> declared = new TreeSet<>(compose.path("volumes").propertyNames());
            Set<String> used = new TreeSet<>();
            for (var e : services.properties()) {
                for (Mount m : mounts(e.getValue())) {
                    if (!m.bind()) {
                        assertThat(declared)
                                .as("service %s mounts named volume %s", e.getKey(), m.source())
                                .contains(m.source());
                        used.add(m.source());
                    }
                }
            }
            assertThat(used).as("declared volumes in use").isEqualTo(declared);
            assertThat(declared).contains("postgres-data", "prometheus-data", "grafana-data", "tempo-data");
        }

        @Test
        void everyFileMountedFromTheRepositoryExists() {
            int binds = 0;
            for (var e : services.properties()) {
                for (Mount m : mounts(e.getValue())) {
                    if (m.bind()) {
                        binds++;
                        assertThat(COMPOSE_DIR.resolve(m.source()).normalize())
                                .as("service %s mounts %s", e.getKey(), m.source())
                                .exists();
                    }
                }
                JsonNode build = e.getValue().path("build");
                if (!build.isMissingNode()) {
                    Path context = COMPOSE_DIR
                            .resolve(
                                    build.isString()
                                            ? build.asString()
                                            : build.path("context").asString("."))
                            .normalize();
                    assertThat(context.resolve(build.path("dockerfile").asString("Dockerfile")))
                            .as("service %s builds from", e.getKey())
                            .isRegularFile();
                }
            }
            assertThat(binds).isGreaterThanOrEqualTo(6);
        }

        @Test
        void configFilesPassedOnCommandLinesAreMountedAtThatPath() {
            Pattern flag = Pattern.compile("--?config(?:\\.file)?=(\\S+)");
            int checked = 0;
            for (var e : services.properties()) {
                for (JsonNode arg : e.getValue().path("command")) {
                    Matcher m = flag.matcher(arg.asString());
                    if (m.matches()) {
                        checked++;
                        Optional<Path> host = hostPathOf(e.getValue(), m.group(1));
                        assertThat(host)
                                .as("%s reads %s, which no bind mount provides", e.getKey(), m.group(1))
                                .isPresent();
                        assertThat(host.get()).isRegularFile();
                    }
                }
            }
            assertThat(checked).as("services started with a config file").isGreaterThanOrEqualTo(3);
        }

        @Test
        void bothPlatformInstancesShareOneDatabaseAndOneRedisAndDifferOnlyInTheirInstanceId() {
            Map<String, Map<String, String>> platform = platformServices();
            assertThat(platform).as("platform instances").hasSizeGreaterThanOrEqualTo(2);
            Set<String> ids = platform.values().stream()
                    .map(env -> env.get("CADRE_INSTANCE_ID"))
                    .collect(Collectors.toSet());
            assertThat(ids).as("distinct CADRE_INSTANCE_ID").hasSize(platform.size());

            List<Map<String, String>> withoutId = platform.values().stream()
                    .map(env -> {
                        Map<String, String> copy = new LinkedHashMap<>(env);
                        copy.remove("CADRE_INSTANCE_ID");
                        return copy;
                    })
                    .toList();
            assertThat(withoutId)
                    .as("environment of the instances apart from CADRE_INSTANCE_ID")
                    .allSatisfy(env -> assertThat(env).isEqualTo(withoutId.getFirst()));
            Map<String, String> env = withoutId.getFirst();

            URI db = URI.create(
                    interpolateDefaults(env.get("CADRE_DATABASE_URL")).substring("jdbc:".length()));
            assertThat(db.getScheme()).isEqualTo("postgresql");
            assertThat(services.path(db.getHost()).path("image").asString())
                    .as("database host %s", db.getHost())
                    .startsWith("postgres:16");
            assertThat(exposedPorts(db.getHost())).contains(db.getPort());

            URI redis = URI.create(env.get("CADRE_REDIS_URL"));
            assertThat(redis.getScheme()).isEqualTo("redis");
            assertThat(services.path(redis.getHost()).path("image").asString())
                    .as("redis host %s", redis.getHost())
                    .startsWith("redis:7");
            assertThat(exposedPorts(redis.getHost())).contains(redis.getPort());

            Set<String> images = platform.keySet().stream()
                    .map(s -> services.path(s).path("image").asString())
                    .collect(Collectors.toSet());
            assertThat(images).as("one image for all instances").hasSize(1);
        }

        @Test
        void loadBalancerForwardsToEveryPlatformInstance() throws IOException {
            String nginx = Files.readString(DEPLOY.resolve("nginx/nginx.conf"));
            for (var e : platformServices().entrySet()) {
                assertThat(nginx)
                        .as("nginx upstream")
                        .contains("server " + e.getKey() + ":" + e.getValue().get("CADRE_PORT"));
            }
        }

        @Test
        void everyRequiredVariableAndSecretSourceIsInTheEnvExampleWhichHoldsNoRealSecrets() throws IOException {
            Map<String, String> example = envExample();
            String text = Files.readString(COMPOSE_DIR.resolve("compose.yaml"));
            Matcher m = Pattern.compile("(?<!\\$)\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?][^}]*)?}")
                    .matcher(text);
            while (m.find()) {
                boolean hasDefault = m.group(2) != null && m.group(2).matches(":?-.*");
                if (!hasDefault) {
                    assertThat(example)
                            .as("${%s} has no default, so .env.example must set it", m.group(1))
                            .containsKey(m.group(1));
                }
            }
            for (var secret : compose.path("secrets").properties()) {
                JsonNode source = secret.getValue();
                if (source.has("environment")) {
                    assertThat(example).containsKey(source.path("environment").asString());
                } else if (source.has("file")) {
                    assertThat(COMPOSE_DIR.resolve(source.path("file").asString()))
                            .isRegularFile();
                }
            }
            example.forEach((k, v) -> {
                if (k.matches(".*(PASSWORD|_KEY|SECRET|TOKEN).*") && !v.isEmpty()) {
                    assertThat(v)
                            .as("%s in .env.example must be a placeholder", k)
                            .startsWith("change-me");
                }
            });
        }

        @Test
        void servicesOnlyUseSecretsTheFileDeclares() {
            Set<String> declared =
                    compose.path("secrets").propertyNames().stream().collect(Collectors.toSet());
            for (var e : services.properties()) {
                for (JsonNode s : e.getValue().path("secrets")) {
                    String name = s.isString() ? s.asString() : s.path("source").asString();
                    assertThat(declared).as("secret of %s", e.getKey()).contains(name);
                }
            }
        }

        @Test
        void platformAgentsLocationPointsAtMountedAgentFiles() {
            for (var e : platformServices().entrySet()) {
                String location = interpolateDefaults(e.getValue().get("CADRE_AGENTS_LOCATIONS"));
                assertThat(location).startsWith("file:").endsWith("/*.yaml");
                String dir = location.substring("file:".length(), location.length() - "/*.yaml".length());
                Optional<Path> host = hostPathOf(services.path(e.getKey()), dir);
                assertThat(host).as("%s: %s is not mounted", e.getKey(), dir).isPresent();
                assertThat(agentFiles(host.get())).isNotEmpty();
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Prometheus, collector, Tempo

    @Nested
    class Telemetry {

        final JsonNode compose = yaml(COMPOSE_DIR.resolve("compose.yaml"));
        final JsonNode services = compose.path("services");
        final JsonNode prometheus = yaml(DEPLOY.resolve("prometheus/prometheus.yml"));
        final JsonNode collector = yaml(DEPLOY.resolve("otel/collector.yaml"));
        final JsonNode tempo = yaml(DEPLOY.resolve("tempo/tempo.yaml"));

        @Test
        void prometheusTargetsAreComposeServicesOnPortsTheyExpose() {
            int targets = 0;
            for (JsonNode job : prometheus.path("scrape_configs")) {
                for (JsonNode sc : job.path("static_configs")) {
                    for (JsonNode t : sc.path("targets")) {
                        targets++;
                        String[] hostPort = t.asString().split(":");
                        assertThat(services.has(hostPort[0]))
                                .as("job %s scrapes %s, which is no compose service", job.path("job_name"), t)
                                .isTrue();
                        assertThat(new Compose().exposedPorts(hostPort[0]))
                                .as("ports of %s", hostPort[0])
                                .contains(Integer.parseInt(hostPort[1]));
                    }
                }
            }
            assertThat(targets).isGreaterThanOrEqualTo(3);
        }

        @Test
        void prometheusScrapesEveryPlatformInstanceWithBearerCredentialsFromAMountedSecret() {
            JsonNode job = stream(prometheus.path("scrape_configs"))
                    .filter(j -> j.path("metrics_path").asString("").equals("/actuator/prometheus"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no job scrapes /actuator/prometheus"));
            Set<String> targets = stream(job.path("static_configs"))
                    .flatMap(sc -> stream(sc.path("targets")))
                    .map(JsonNode::asString)
                    .collect(Collectors.toSet());
            Set<String> instances = new Compose()
                    .platformServices().entrySet().stream()
                            .map(e -> e.getKey() + ":" + e.getValue().get("CADRE_PORT"))
                            .collect(Collectors.toSet());
            assertThat(targets).isEqualTo(instances);

            JsonNode auth = job.path("authorization");
            assertThat(auth.path("type").asString("Bearer")).isEqualTo("Bearer");
            String file = auth.path("credentials_file").asString("");
            assertThat(file).as("credentials_file").startsWith("/run/secrets/");
            String secret = file.substring("/run/secrets/".length());
            Set<String> mounted = stream(services.path("prometheus").path("secrets"))
                    .map(s -> s.isString()
                            ? s.asString()
                            : s.path("target").asString(s.path("source").asString()))
                    .collect(Collectors.toSet());
            assertThat(mounted).as("secrets mounted into prometheus").contains(secret);
        }

        @Test
        void platformTracesGoOverOtlpToTheCollectorWhichForwardsThemToTempo() {
            Map<String, Map<String, String>> platform = new Compose().platformServices();
            for (var e : platform.entrySet()) {
                URI endpoint = URI.create(e.getValue().get("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT"));
                assertThat(endpoint.getPath()).isEqualTo("/v1/traces");
                assertThat(services.has(endpoint.getHost()))
                        .as("OTLP endpoint host")
                        .isTrue();
                assertThat(new Compose().exposedPorts(endpoint.getHost())).contains(endpoint.getPort());
                assertThat(port(collector.at("/receivers/otlp/protocols/http/endpoint")))
                        .as("collector OTLP/HTTP receiver")
                        .isEqualTo(endpoint.getPort());
            }
            JsonNode pipeline = collector.at("/service/pipelines/traces");
            assertThat(pipeline.isObject()).as("traces pipeline").isTrue();
            for (String section : List.of("receivers", "processors", "exporters")) {
                for (JsonNode component : pipeline.path(section)) {
                    assertThat(collector.path(section).has(component.asString()))
                            .as("%s %s of the traces pipeline is defined", section, component)
                            .isTrue();
                }
            }
            for (JsonNode ext : collector.at("/service/extensions")) {
                assertThat(collector.path("extensions").has(ext.asString())).isTrue();
            }
            List<String> exporters =
                    stream(pipeline.path("exporters")).map(JsonNode::asString).toList();
            String tempoExporter = exporters.stream()
                    .filter(x -> collector
                            .path("exporters")
                            .path(x)
                            .path("endpoint")
                            .asString("")
                            .startsWith("tempo:"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no exporter of the traces pipeline sends to tempo"));
            int tempoPort = port(collector.path("exporters").path(tempoExporter).path("endpoint"));
            assertThat(new Compose().exposedPorts("tempo")).contains(tempoPort);
            assertThat(port(tempo.at("/distributor/receivers/otlp/protocols/grpc/endpoint")))
                    .as("Tempo OTLP/gRPC receiver")
                    .isEqualTo(tempoPort);
            assertThat(new Compose().exposedPorts("tempo"))
                    .contains(tempo.at("/server/http_listen_port").asInt());
        }

        @Test
        void collectorSelfMetricsPortIsTheOnePrometheusScrapes() {
            int selfMetrics = collector
                    .at("/service/telemetry/metrics/readers/0/pull/exporter/prometheus/port")
                    .asInt();
            assertThat(stream(prometheus.path("scrape_configs"))
                            .flatMap(j -> stream(j.path("static_configs")))
                            .flatMap(sc -> stream(sc.path("targets")))
                            .map(JsonNode::asString))
                    .contains("otel-collector:" + selfMetrics);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Grafana

    @Nested
    class Grafana {

        final JsonNode compose = yaml(COMPOSE_DIR.resolve("compose.yaml"));
        final JsonNode grafana = compose.at("/services/grafana");
        final JsonNode datasources = yaml(DEPLOY.resolve("grafana/provisioning/datasources/datasources.yaml"));
        final JsonNode providers = yaml(DEPLOY.resolve("grafana/provisioning/dashboards/dashboards.yaml"));
        final JsonNode dashboard = json(DEPLOY.resolve("grafana/dashboards/cadre.json"));

        @Test
        void provisioningDirectoriesAreMountedWhereGrafanaReadsThem() {
            for (String kind : List.of("datasources", "dashboards")) {
                assertThat(hostPathOf(grafana, "/etc/grafana/provisioning/" + kind))
                        .as("provisioning/%s mount", kind)
                        .contains(DEPLOY.resolve("grafana/provisioning/" + kind).normalize());
            }
        }

        @Test
        void dashboardProviderPointsAtAMountedFolderThatHoldsCadreJson() {
            JsonNode provider = providers.path("providers").path(0);
            assertThat(provider.path("type").asString()).isEqualTo("file");
            String path = provider.at("/options/path").asString();
            Optional<Path> host = hostPathOf(grafana, path);
            assertThat(host).as("dashboard folder %s is not mounted", path).isPresent();
            assertThat(host.get().resolve("cadre.json")).isRegularFile();

            String home = env(grafana).getOrDefault("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH", "");
            if (!home.isEmpty()) {
                assertThat(hostPathOf(grafana, home)).as("home dashboard").isPresent();
                assertThat(hostPathOf(grafana, home).get()).isRegularFile();
            }
        }

        @Test
        void datasourcesPointAtComposeServicesAndCoverEveryUidTheDashboardUses() {
            Map<String, String> uidToType = new HashMap<>();
            for (JsonNode ds : datasources.path("datasources")) {
                uidToType.put(ds.path("uid").asString(), ds.path("type").asString());
                URI url = URI.create(ds.path("url").asString());
                assertThat(new Compose().exposedPorts(url.getHost()))
                        .as("datasource %s at %s", ds.path("name"), url)
                        .contains(url.getPort());
            }
            assertThat(uidToType).containsEntry("prometheus", "prometheus").containsEntry("tempo", "tempo");
            List<JsonNode> refs = new ArrayList<>();
            collect(dashboard, n -> n.has("datasource") && n.path("datasource").has("uid"), refs);
            assertThat(refs).isNotEmpty();
            for (JsonNode ref : refs) {
                JsonNode ds = ref.path("datasource");
                String uid = ds.path("uid").asString();
                if (uid.startsWith("$") || uid.equals("-- Grafana --")) {
                    continue;
                }
                assertThat(uidToType).as("datasource uid in the dashboard").containsKey(uid);
                assertThat(ds.path("type").asString()).isEqualTo(uidToType.get(uid));
            }
            for (JsonNode dest : datasources.at("/datasources/0/jsonData/exemplarTraceIdDestinations")) {
                assertThat(uidToType).containsKey(dest.path("datasourceUid").asString());
            }
        }

        @Test
        void everyPromqlExpressionReferencesOnlyMetricsThePlatformExports() {
            List<String> expressions = promqlExpressions();
            assertThat(expressions).hasSizeGreaterThanOrEqualTo(25);
            Map<String, Set<String>> unknown = new LinkedHashMap<>();
            for (String expr : expressions) {
                Set<String> names = metricNames(expr);
                assertThat(names).as("no metric found in: %s", expr).isNotEmpty();
                for (String name : names) {
                    // Recorded series (level:metric:operation) come from deploy/prometheus/rules.
                    if (!EXPORTED_METRICS.contains(exportedFamily(name))
                            && !recordedSeries().contains(name)) {
                        unknown.computeIfAbsent(name, k -> new TreeSet<>()).add(expr);
                    }
                }
            }
            assertThat(unknown).as("metrics the platform does not export").isEmpty();
        }

        @Test
        void dashboardUsesEveryExportedMetricAndComputesTheRunLatencyPercentiles() {
            Set<String> used = promqlExpressions().stream()
                    .flatMap(e -> metricNames(e).stream())
                    .map(DeployKitTest::exportedFamily)
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(used).containsAll(EXPORTED_METRICS);
            String all = String.join("\n", promqlExpressions());
            for (String q : List.of("0.5", "0.95", "0.99")) {
                assertThat(all)
                        .contains("histogram_quantile(" + q + ", sum by (le) (rate(cadre_run_duration_seconds_bucket");
            }
        }

        @Test
        void panelsLinkToTracesOfServiceCadreInTempoAndToRunsInTheConsole() {
            List<JsonNode> panels = new ArrayList<>();
            collect(
                    dashboard.path("panels"),
                    n -> n.has("type")
                            && n.has("gridPos")
                            && !n.path("type").asString().equals("row"),
                    panels);
            int toTempo = 0;
            int toConsole = 0;
            int runPages = 0;
            for (JsonNode panel : panels) {
                List<String> urls = new ArrayList<>();
                collect(panel, n -> n.has("url"), new ArrayList<>())
                        .forEach(n -> urls.add(n.path("url").asString()));
                for (String url : urls) {
                    String decoded = URLDecoder.decode(url, StandardCharsets.UTF_8);
                    if (decoded.startsWith("/explore")
                            && decoded.contains("\"uid\":\"tempo\"")
                            && decoded.contains("resource.service.name=\\\"cadre\\\"")) {
                        toTempo++;
                    }
                    if (url.startsWith("${console_url}")) {
                        toConsole++;
                    }
                    if (url.contains("/#/runs/${__value.raw}")) {
                        runPages++;
                    }
                }
            }
            assertThat(toTempo)
                    .as("panel links to Tempo traces of service cadre")
                    .isGreaterThanOrEqualTo(5);
            assertThat(toConsole).as("links to the console").isGreaterThanOrEqualTo(3);
            assertThat(runPages).as("data links to a run's console page").isGreaterThanOrEqualTo(1);
            assertThat(stream(dashboard.at("/templating/list"))
                            .map(v -> v.path("name").asString()))
                    .as("dashboard variables")
                    .contains("console_url", "agent");
        }

        List<String> promqlExpressions() {
            List<String> out = new ArrayList<>();
            collect(dashboard, n -> n.has("expr"), new ArrayList<>())
                    .forEach(n -> out.add(n.path("expr").asString()));
            for (JsonNode v : dashboard.at("/templating/list")) {
                if (v.path("type").asString().equals("query")) {
                    JsonNode q = v.path("query");
                    out.add(q.isObject() ? q.path("query").asString() : q.asString());
                }
            }
            for (JsonNode ds : datasources.path("datasources")) {
                for (JsonNode q : ds.at("/jsonData/tracesToMetrics/queries")) {
                    out.add(q.path("query").asString());
                }
            }
            return out;
        }
    }

    // ------------------------------------------------------------------------------------------
    // PromQL metric-name extraction (used above), checked on its own

    @Test
    void metricNameExtractionSkipsFunctionsKeywordsLabelsGroupingsDurationsAndVariables() {
        assertThat(
                        metricNames(
                                "histogram_quantile(0.95, sum by (le, agent) (rate(cadre_run_duration_seconds_bucket{agent=~\"$agent\",status!=\"failed\"}[$__rate_interval])))"))
                .containsExactly("cadre_run_duration_seconds_bucket");
        assertThat(
                        metricNames(
                                "sum(increase(a_total[5m] offset 1h)) / clamp_min(sum without (x) (b_total), 1e-9) and on (instance) c"))
                .containsExactlyInAnyOrder("a_total", "b_total", "c");
        assertThat(metricNames("label_values(cadre_runs_total, agent)")).containsExactly("cadre_runs_total");
        assertThat(metricNames("sort_desc(sum by (category, agent) (x_total))")).containsExactly("x_total");
        assertThat(metricNames("up")).containsExactly("up");
        assertThat(exportedFamily("cadre_tool_duration_seconds_count")).isEqualTo("cadre_tool_duration_seconds");
        assertThat(exportedFamily("cadre_runs_total_count")).isEqualTo("cadre_runs_total_count");
    }

    // ------------------------------------------------------------------------------------------
    // Kubernetes

    @Nested
    class Kubernetes {

        final Path dir = DEPLOY.resolve("k8s");
        final JsonNode kustomization = yaml(dir.resolve("kustomization.yaml"));
        final Map<String, JsonNode> byKindAndName = new LinkedHashMap<>();
        final Map<Path, List<JsonNode>> byFile = new LinkedHashMap<>();

        Kubernetes() throws IOException {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".yaml"))
                        .filter(p -> !p.getFileName().toString().equals("kustomization.yaml"))
                        // Opt-in, applied per namespace on its own (docs/kubernetes.md): not in the base.
                        .filter(p -> !p.getFileName().toString().equals("kubernetes-write-role.yaml"))
                        .sorted()
                        .toList()) {
                    List<JsonNode> docs =
                            yamlDocuments(f).stream().filter(JsonNode::isObject).toList();
                    byFile.put(f, docs);
                    docs.forEach(d -> byKindAndName.put(
                            d.path("kind").asString() + "/"
                                    + d.at("/metadata/name").asString(),
                            d));
                }
            }
        }

        JsonNode get(String kind, String name) {
            JsonNode n = byKindAndName.get(kind + "/" + name);
            if (n == null) {
                fail("no %s named %s in deploy/k8s (have %s)", kind, name, byKindAndName.keySet());
            }
            return n;
        }

        JsonNode deployment() {
            List<JsonNode> deployments = byKindAndName.values().stream()
                    .filter(d -> d.path("kind").asString().equals("Deployment"))
                    .toList();
            assertThat(deployments).hasSize(1);
            return deployments.getFirst();
        }

        @Test
        void everyManifestCarriesApiVersionKindNameAndTheNamespace() {
            String namespace = byKindAndName.values().stream()
                    .filter(d -> d.path("kind").asString().equals("Namespace"))
                    .map(d -> d.at("/metadata/name").asString())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no Namespace manifest"));
            assertThat(kustomization.path("namespace").asString()).isEqualTo(namespace);
            assertThat(byKindAndName.keySet())
                    .contains(
                            "Namespace/" + namespace,
                            "Deployment/cadre",
                            "Service/cadre",
                            "HorizontalPodAutoscaler/cadre",
                            "PodDisruptionBudget/cadre");
            for (JsonNode d : byKindAndName.values()) {
                String what =
                        d.path("kind").asString() + "/" + d.at("/metadata/name").asString();
                assertThat(d.path("apiVersion").asString(""))
                        .as("%s apiVersion", what)
                        .isNotBlank();
                assertThat(d.path("kind").asString("")).as("%s kind", what).isNotBlank();
                assertThat(d.at("/metadata/name").asString(""))
                        .as("%s name", what)
                        .isNotBlank();
                // Cluster-scoped kinds have no namespace.
                if (!Set.of("Namespace", "ClusterRole", "ClusterRoleBinding")
                        .contains(d.path("kind").asString())) {
                    assertThat(d.at("/metadata/namespace").asString(""))
                            .as("%s namespace", what)
                            .isEqualTo(namespace);
                }
            }
            assertThat(get("HorizontalPodAutoscaler", "cadre")
                            .path("apiVersion")
                            .asString())
                    .isEqualTo("autoscaling/v2");
            assertThat(get("PodDisruptionBudget", "cadre").path("apiVersion").asString())
                    .isEqualTo("policy/v1");
            assertThat(deployment().path("apiVersion").asString()).isEqualTo("apps/v1");
        }

        @Test
        void kustomizationListsExistingFilesAndEveryManifestFile() {
            Set<String> listed = stream(kustomization.path("resources"))
                    .map(JsonNode::asString)
                    .collect(Collectors.toSet());
            for (String r : listed) {
                assertThat(dir.resolve(r)).as("kustomization resource").isRegularFile();
            }
            for (var e : byFile.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    assertThat(listed)
                            .as("manifest file not in kustomization")
                            .contains(e.getKey().getFileName().toString());
                }
            }
        }

        @Test
        void deploymentRunsThreeNonRootReplicasWithProbesResourcesAndReadOnlyRoot() {
            JsonNode d = deployment();
            assertThat(d.at("/spec/replicas").asInt()).isEqualTo(3);
            JsonNode selector = d.at("/spec/selector/matchLabels");
            JsonNode labels = d.at("/spec/template/metadata/labels");
            assertThat(selector.isObject() && !selector.isEmpty()).isTrue();
            assertThat(subsetOf(selector, labels))
                    .as("selector matches the template labels")
                    .isTrue();

            JsonNode pod = d.at("/spec/template/spec");
            JsonNode c = pod.path("containers").path(0);
            Set<String> ports = new LinkedHashSet<>();
            for (JsonNode p : c.path("ports")) {
                ports.add(p.path("name").asString());
                ports.add(p.path("containerPort").asString());
            }
            Map<String, String> probes = Map.of(
                    "livenessProbe", "/actuator/health/liveness",
                    "readinessProbe", "/actuator/health/readiness",
                    "startupProbe", "/actuator/health/liveness");
            probes.forEach((probe, path) -> {
                assertThat(c.at("/" + probe + "/httpGet/path").asString())
                        .as(probe)
                        .isEqualTo(path);
                assertThat(ports)
                        .as("%s port", probe)
                        .contains(c.at("/" + probe + "/httpGet/port").asString());
            });
            assertThat(c.at("/resources/requests/cpu").asString("")).isNotBlank();
            assertThat(c.at("/resources/requests/memory").asString("")).isNotBlank();
            assertThat(c.at("/resources/limits/memory").asString("")).isNotBlank();

            boolean nonRoot = pod.at("/securityContext/runAsNonRoot").asBoolean(false)
                    || c.at("/securityContext/runAsNonRoot").asBoolean(false);
            assertThat(nonRoot).as("runAsNonRoot").isTrue();
            assertThat(c.at("/securityContext/readOnlyRootFilesystem").asBoolean(false))
                    .isTrue();
            assertThat(c.at("/securityContext/allowPrivilegeEscalation").asBoolean(true))
                    .isFalse();
            String tmpVolume = stream(c.path("volumeMounts"))
                    .filter(m -> m.path("mountPath").asString().equals("/tmp"))
                    .map(m -> m.path("name").asString())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("/tmp is not mounted"));
            assertThat(volume(pod, tmpVolume).has("emptyDir"))
                    .as("/tmp is an emptyDir")
                    .isTrue();

            JsonNode annotations = d.at("/spec/template/metadata/annotations");
            assertThat(annotations.path("prometheus.io/scrape").asString()).isEqualTo("true");
            assertThat(annotations.path("prometheus.io/path").asString()).isEqualTo("/actuator/prometheus");
            assertThat(ports).contains(annotations.path("prometheus.io/port").asString());
        }

        @Test
        void deploymentTakesItsEnvironmentAndAgentsFromConfigMapsAndSecretsThatExist() {
            JsonNode d = deployment();
            JsonNode pod = d.at("/spec/template/spec");
            JsonNode c = pod.path("containers").path(0);
            Set<String> kinds = new LinkedHashSet<>();
            for (JsonNode from : c.path("envFrom")) {
                if (from.has("configMapRef")) {
                    get("ConfigMap", from.at("/configMapRef/name").asString());
                    kinds.add("ConfigMap");
                }
                if (from.has("secretRef")) {
                    get("Secret", from.at("/secretRef/name").asString());
                    kinds.add("Secret");
                }
            }
            assertThat(kinds).containsExactlyInAnyOrder("ConfigMap", "Secret");
            for (JsonNode v : pod.path("volumes")) {
                if (v.has("configMap")) {
                    get("ConfigMap", v.at("/configMap/name").asString());
                }
                if (v.has("secret")) {
                    get("Secret", v.at("/secret/secretName").asString());
                }
            }

            Map<String, String> settings = settings();
            assertThat(settings.get("CADRE_PORT"))
                    .isEqualTo(c.at("/ports/0/containerPort").asString());
            String location = settings.get("CADRE_AGENTS_LOCATIONS");
            assertThat(location).startsWith("file:").endsWith("/*.yaml");
            String mountPath = location.substring("file:".length(), location.length() - "/*.yaml".length());
            JsonNode mount = stream(c.path("volumeMounts"))
                    .filter(m -> m.path("mountPath").asString().equals(mountPath))
                    .findFirst()
                    .orElseThrow(
                            () -> new AssertionError("CADRE_AGENTS_LOCATIONS dir " + mountPath + " is not mounted"));
            String agentsMap = volume(pod, mount.path("name").asString())
                    .at("/configMap/name")
                    .asString();
            JsonNode data = get("ConfigMap", agentsMap).path("data");
            assertThat(data.propertyNames())
                    .isNotEmpty()
                    .allSatisfy(k -> assertThat(k).endsWith(".yaml"));

            Map<String, String> secrets = new LinkedHashMap<>();
            for (JsonNode from : c.path("envFrom")) {
                if (from.has("secretRef")) {
                    get("Secret", from.at("/secretRef/name").asString())
                            .path("stringData")
                            .properties()
                            .forEach(e -> secrets.put(e.getKey(), e.getValue().asString()));
                }
            }
            assertThat(secrets)
                    .containsKeys(
                            "CADRE_DATABASE_URL",
                            "CADRE_DATABASE_USER",
                            "CADRE_DATABASE_PASSWORD",
                            "CADRE_REDIS_URL",
                            "CADRE_BOOTSTRAP_API_KEY");
            assertThat(secrets.get("CADRE_DATABASE_URL")).startsWith("jdbc:postgresql://");
            assertThat(secrets.get("CADRE_REDIS_URL")).startsWith("redis://");
            secrets.forEach((k, v) -> {
                if (k.matches(".*(PASSWORD|_KEY).*") && !v.isEmpty()) {
                    assertThat(v).as("%s must be a placeholder", k).startsWith("change-me");
                }
            });
        }

        @Test
        void agentsConfigMapCarriesTheSameTeamAsTheComposeAgentFiles() throws IOException {
            JsonNode pod = deployment().at("/spec/template/spec");
            String agentsMap = stream(pod.path("volumes"))
                    .filter(v -> v.has("configMap"))
                    .map(v -> v.at("/configMap/name").asString())
                    .findFirst()
                    .orElseThrow();
            JsonNode data = get("ConfigMap", agentsMap).path("data");
            List<Path> files = agentFiles(DEPLOY.resolve("agents"));
            assertThat(data.propertyNames())
                    .containsExactlyInAnyOrderElementsOf(
                            files.stream().map(p -> p.getFileName().toString()).toList());
            for (Path f : files) {
                JsonNode inMap =
                        YAML.readTree(data.path(f.getFileName().toString()).asString());
                assertThat(inMap)
                        .as("ConfigMap %s vs %s", agentsMap, ROOT.relativize(f))
                        .isEqualTo(yaml(f));
                Set<String> names = stream(inMap.path("agents"))
                        .map(a -> a.path("name").asString())
                        .collect(Collectors.toSet());
                for (JsonNode agent : inMap.path("agents")) {
                    assertThat(agent.path("model").asString(""))
                            .as("model of %s", agent.path("name"))
                            .isNotBlank();
                    for (JsonNode w : agent.path("workers")) {
                        assertThat(names).as("worker of %s", agent.path("name")).contains(w.asString());
                    }
                }
            }
        }

        @Test
        void serviceAutoscalerAndDisruptionBudgetTargetTheDeployment() {
            JsonNode d = deployment();
            String name = d.at("/metadata/name").asString();
            JsonNode labels = d.at("/spec/template/metadata/labels");
            Set<String> containerPorts = new LinkedHashSet<>();
            for (JsonNode p : d.at("/spec/template/spec/containers/0/ports")) {
                containerPorts.add(p.path("name").asString());
                containerPorts.add(p.path("containerPort").asString());
            }

            JsonNode service = get("Service", name);
            JsonNode selector = service.at("/spec/selector");
            assertThat(selector.isObject() && !selector.isEmpty()).isTrue();
            assertThat(subsetOf(selector, labels))
                    .as("Service selector matches the pod labels")
                    .isTrue();
            for (JsonNode p : service.at("/spec/ports")) {
                assertThat(containerPorts)
                        .as("Service targetPort")
                        .contains(p.path("targetPort").asString());
            }

            JsonNode hpa = get("HorizontalPodAutoscaler", name);
            assertThat(hpa.at("/spec/scaleTargetRef/kind").asString()).isEqualTo("Deployment");
            assertThat(hpa.at("/spec/scaleTargetRef/name").asString()).isEqualTo(name);
            assertThat(hpa.at("/spec/scaleTargetRef/apiVersion").asString())
                    .isEqualTo(d.path("apiVersion").asString());
            assertThat(hpa.at("/spec/minReplicas").asInt())
                    .isEqualTo(d.at("/spec/replicas").asInt());
            assertThat(hpa.at("/spec/maxReplicas").asInt())
                    .isGreaterThan(hpa.at("/spec/minReplicas").asInt());
            assertThat(stream(hpa.at("/spec/metrics"))
                            .map(m -> m.at("/resource/name").asString()))
                    .contains("cpu");

            JsonNode pdb = get("PodDisruptionBudget", name);
            JsonNode pdbSelector = pdb.at("/spec/selector/matchLabels");
            assertThat(pdbSelector.isObject() && !pdbSelector.isEmpty()).isTrue();
            assertThat(subsetOf(pdbSelector, labels))
                    .as("PDB selector matches the pod labels")
                    .isTrue();
            boolean allowsADrain = pdb.at("/spec/maxUnavailable").asInt(0) >= 1
                    || (pdb.at("/spec/minAvailable").isInt()
                            && pdb.at("/spec/minAvailable").asInt()
                                    < d.at("/spec/replicas").asInt());
            assertThat(allowsADrain).as("the PDB lets a node drain proceed").isTrue();
        }

        Map<String, String> settings() {
            Map<String, String> out = new LinkedHashMap<>();
            for (JsonNode from : deployment().at("/spec/template/spec/containers/0/envFrom")) {
                if (from.has("configMapRef")) {
                    get("ConfigMap", from.at("/configMapRef/name").asString())
                            .path("data")
                            .properties()
                            .forEach(e -> out.put(e.getKey(), e.getValue().asString()));
                }
            }
            return out;
        }

        Set<String> secretKeys() {
            Set<String> out = new TreeSet<>();
            byKindAndName.values().stream()
                    .filter(d -> d.path("kind").asString().equals("Secret"))
                    .forEach(d -> out.addAll(d.path("stringData").propertyNames()));
            return out;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Image and documentation

    @Test
    void dockerfileBuildsEveryModuleAndRunsTheJarAsNonRootWithALivenessHealthcheck() throws IOException {
        String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
        String pom = Files.readString(ROOT.resolve("pom.xml"));
        Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        int modules = 0;
        while (module.find()) {
            modules++;
            assertThat(dockerfile)
                    .as("the build stage copies module %s", module.group(1))
                    .contains("COPY " + module.group(1) + "/");
        }
        assertThat(modules).isGreaterThanOrEqualTo(4);
        assertThat(dockerfile).contains("-pl platform-api -am package");
        assertThat(dockerfile).containsPattern("FROM eclipse-temurin:\\$\\{JAVA_VERSION}-jre");
        assertThat(dockerfile).containsPattern("(?m)^USER (?!root|0\\b)\\S+");
        assertThat(dockerfile).containsPattern("(?s)HEALTHCHECK .*?/actuator/health/liveness");
        assertThat(dockerfile).contains("EXPOSE 8080");
        String ignore = Files.readString(ROOT.resolve(".dockerignore"));
        assertThat(ignore).contains("**/target").contains(".env").contains(".git");
    }

    @Test
    void configurationReferenceDocumentsEverySettingTheDeployKitSets() throws IOException {
        String reference = Files.readString(ROOT.resolve("docs/configuration.md"));
        Set<String> keys = new TreeSet<>();
        new Compose().platformServices().values().forEach(env -> keys.addAll(env.keySet()));
        Kubernetes k8s = new Kubernetes();
        keys.addAll(k8s.settings().keySet());
        keys.addAll(k8s.secretKeys());
        keys.remove("token"); // the Prometheus key Secret, documented in deploy.md
        keys.remove("JAVA_TOOL_OPTIONS");
        assertThat(keys).hasSizeGreaterThanOrEqualTo(15);
        List<String> missing =
                keys.stream().filter(k -> !reference.contains("`" + k + "`")).toList();
        assertThat(missing).as("settings missing from docs/configuration.md").isEmpty();
        for (String property : List.of(
                "cadre.runs.max-concurrent",
                "cadre.approvals.timeout",
                "cadre.http.max-body-bytes",
                "cadre.redaction.patterns",
                "cadre.agents.locations",
                "management.opentelemetry.tracing.export.otlp.endpoint",
                "management.tracing.sampling.probability")) {
            assertThat(reference).contains("`" + property + "`");
        }
    }

    @Test
    void deployGuideCoversComposeKubernetesFirstAdminKeyObservabilityScalingAndBackup() throws IOException {
        String guide = Files.readString(ROOT.resolve("docs/deploy.md"));
        assertThat(guide)
                .contains("deploy/compose/compose.yaml")
                .contains("kubectl apply -k deploy/k8s")
                .contains("CADRE_BOOTSTRAP_API_KEY")
                .contains("/api/v1/keys")
                .contains("pg_dump")
                .contains("Tempo")
                .contains("Grafana")
                .contains("Prometheus");
        Matcher links = Pattern.compile("\\]\\(((?!https?:|#)[^)#]+)").matcher(guide);
        while (links.find()) {
            assertThat(ROOT.resolve("docs").resolve(links.group(1)).normalize())
                    .as("link %s in docs/deploy.md", links.group(1))
                    .exists();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Helpers

    /** A volume of a compose service: a bind mount from the repository or a named volume. */
    record Mount(String source, String target, boolean bind) {}

    static List<Mount> mounts(JsonNode service) {
        List<Mount> out = new ArrayList<>();
        for (JsonNode v : service.path("volumes")) {
            if (v.isString()) {
                String[] parts = v.asString().split(":");
                String source = parts[0];
                out.add(new Mount(
                        source,
                        parts.length > 1 ? parts[1] : parts[0],
                        source.startsWith(".") || source.startsWith("/")));
            } else {
                out.add(new Mount(
                        v.path("source").asString(),
                        v.path("target").asString(),
                        v.path("type").asString().equals("bind")));
            }
        }
        return out;
    }

    /** The repository path that provides {@code containerPath} inside a compose service, if any. */
    static Optional<Path> hostPathOf(JsonNode service, String containerPath) {
        for (Mount m : mounts(service)) {
            if (!m.bind()) {
                continue;
            }
            String target = m.target().replaceAll("/+$", "");
            if (containerPath.equals(target)) {
                return Optional.of(COMPOSE_DIR.resolve(m.source()).normalize());
            }
            if (containerPath.startsWith(target + "/")) {
                return Optional.of(COMPOSE_DIR
                        .resolve(m.source())
                        .resolve(containerPath.substring(target.length() + 1))
                        .normalize());
            }
        }
        return Optional.empty();
    }

    static Map<String, String> env(JsonNode service) {
        Map<String, String> out = new LinkedHashMap<>();
        JsonNode env = service.path("environment");
        if (env.isArray()) {
            env.forEach(e -> {
                String[] kv = e.asString().split("=", 2);
                out.put(kv[0], kv.length > 1 ? kv[1] : "");
            });
        } else {
            env.properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        }
        return out;
    }

    /** Replaces {@code ${VAR:-default}} by its default and {@code ${VAR}} / {@code ${VAR:?msg}} by {@code <VAR>}. */
    static String interpolateDefaults(String value) {
        Matcher m = Pattern.compile("\\$\\{([A-Za-z0-9_]+)(?::?-([^}]*)|:?\\?[^}]*)?}")
                .matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(2) != null ? m.group(2) : "<" + m.group(1) + ">"));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    static Map<String, String> envExample() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(COMPOSE_DIR.resolve(".env.example"))) {
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] kv = l.split("=", 2);
            out.put(kv[0].strip(), kv.length > 1 ? kv[1].strip() : "");
        }
        return out;
    }

    static List<Path> agentFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static int port(JsonNode endpoint) {
        String s = endpoint.asString("");
        assertThat(s).as("endpoint").contains(":");
        return Integer.parseInt(s.substring(s.lastIndexOf(':') + 1));
    }

    static JsonNode volume(JsonNode podSpec, String name) {
        return stream(podSpec.path("volumes"))
                .filter(v -> v.path("name").asString().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no pod volume named " + name));
    }

    static boolean subsetOf(JsonNode small, JsonNode big) {
        return small.properties().stream()
                .allMatch(e -> big.path(e.getKey())
                        .asString("\u0000")
                        .equals(e.getValue().asString()));
    }

    static Stream<JsonNode> stream(JsonNode node) {
        return node.valueStream();
    }

    static List<JsonNode> collect(JsonNode node, Predicate<JsonNode> accept, List<JsonNode> into) {
        if (node.isObject() && accept.test(node)) {
            into.add(node);
        }
        if (node.isContainer()) {
            node.values().forEach(child -> collect(child, accept, into));
        }
        return into;
    }

    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:$])[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of(
            "and",
            "or",
            "unless",
            "bool",
            "offset",
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "inf",
            "nan",
            "atan2",
            "start",
            "end");

    /**
     * The metric names a PromQL expression selects: identifiers followed by {@code {}, {@code [},
     * whitespace, {@code )}, {@code ,} or the end, that are neither functions (followed by
     * {@code (}) nor keywords; label matchers, strings, ranges, grouping clauses and Grafana
     * variables are removed first.
     */
    static Set<String> metricNames(String expression) {
        String s = expression.replaceAll("label_values\\(\\s*([^,()]+?)\\s*,\\s*\\w+\\s*\\)", "$1");
        s = s.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
        s = s.replaceAll("'(?:[^'\\\\]|\\\\.)*'", "''");
        s = s.replaceAll("\\{[^}]*}", "{}");
        s = s.replaceAll("\\[[^\\]]*\\]", "[]");
        s = s.replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        s = s.replaceAll("\\$\\{?\\w+}?", " ");
        Set<String> out = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String rest = s.substring(m.end());
            boolean followedOk =
                    rest.isEmpty() || "{[),".indexOf(rest.charAt(0)) >= 0 || Character.isWhitespace(rest.charAt(0));
            boolean function = rest.stripLeading().startsWith("(");
            if (followedOk && !function && !KEYWORDS.contains(m.group())) {
                out.add(m.group());
            }
        }
        return out;
    }

    /** The series the shipped recording rules define. */
    static Set<String> recordedSeries() {
        try {
            Matcher m = Pattern.compile("- record: (\\S+)")
                    .matcher(Files.readString(DEPLOY.resolve("prometheus/rules/cadre-recording.yml")));
            Set<String> out = new TreeSet<>();
            while (m.find()) {
                out.add(m.group(1));
            }
            return out;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Maps a histogram series (_bucket/_sum/_count) to its exported family. */
    static String exportedFamily(String series) {
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (series.endsWith(suffix)) {
                String base = series.substring(0, series.length() - suffix.length());
                if (HISTOGRAMS.contains(base)) {
                    return base;
                }
            }
        }
        return series;
    }

    static JsonNode yaml(Path file) {
        List<JsonNode> docs = yamlDocuments(file);
        assertThat(docs).as("documents in %s", file).hasSize(1);
        return docs.getFirst();
    }

    static List<JsonNode> yamlDocuments(Path file) {
        try {
            return YAML.readerFor(JsonNode.class).<JsonNode>readValues(Files.readString(file)).readAll().stream()
                    .filter(d -> d != null && !d.isNull() && !d.isMissingNode())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode json(Path file) {
        try {
            return JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path findRepositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null) {
            if (Files.isDirectory(dir.resolve("deploy")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
            dir = dir.getParent();
        }
        throw new IllegalStateException(
                "no directory with deploy/ and pom.xml above " + Path.of("").toAbsolutePath());
    }
}
