package dev.cadre.platform.tools;

import dev.cadre.agent.FailureCategory;
import dev.cadre.agent.tool.JsonSchemas;
import dev.cadre.agent.tool.Risk;
import dev.cadre.agent.tool.Tool;
import dev.cadre.agent.tool.ToolContext;
import dev.cadre.agent.tool.ToolException;
import dev.cadre.memory.Writer;
import dev.cadre.platform.incidents.Incident;
import dev.cadre.platform.incidents.IncidentService;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code runbook_execute}: runs a declared runbook script, risk {@code APPROVE}. The loop asks a
 * human first and journals the call, so one approval never runs twice, even across a crash. On top of
 * that this tool claims the (incident, runbook) pair in shared memory before it starts the process:
 * a second approval of the same remediation within the window, from another run or a looping team,
 * is answered "already done" and nothing runs. The process is started without a shell (argv, not a
 * command line), in the runbook directory, with a timeout; its output is captured and truncated.
 */
final class RunbookExecuteTool implements Tool {

    private final Runbooks runbooks;
    private final IncidentService incidents;
    private final int maxOutputChars;
    private final List<String> passEnvironment;
    private final JsonMapper json;
    private final SshRunbookRunner ssh;

    /**
     * @param passEnvironment the names of the platform's environment variables a runbook inherits
     *     ({@code cadre.runbooks.environment}); nothing else of the platform's environment reaches it
     */
    RunbookExecuteTool(
            Runbooks runbooks,
            IncidentService incidents,
            int maxOutputChars,
            List<String> passEnvironment,
            JsonMapper json,
            SshRunbookRunner ssh) {
        this.ssh = ssh;
        this.runbooks = runbooks;
        this.incidents = incidents;
        this.maxOutputChars = maxOutputChars;
        this.passEnvironment = List.copyOf(passEnvironment);
        this.json = json;
    }

    @Override
    public String name() {
        return "runbook_execute";
    }

    @Override
    public String description() {
        String available = runbooks.list().stream()
                .map(r -> r.name() + " (" + r.description()
                        + (r.target() == Runbooks.Target.ALERT_HOST
                                ? "; runs on the host given (over SSH), allowed hosts " + r.hosts()
                                : "; runs on the platform's machine")
                        + "; parameters: "
                        + r.parameters().stream()
                                .map(p -> p.name() + ":" + p.type())
                                .collect(Collectors.joining(", "))
                        + ")")
                .collect(Collectors.joining("; "));
        return "Run a remediation runbook from the runbook directory after a human approves it: a runbook that runs"
                + " on the alert's host needs 'host' (the incident's host name, e.g. web-1), and runs there over SSH;"
                + " a local one runs on the platform's machine and takes no host. At most once per"
                + " incident and runbook within the remediation window; never for an escalated incident."
                + " The incident defaults to the one this run works on. Runbooks: "
                + (available.isEmpty() ? "none installed" : available);
    }

    @Override
    public JsonNode parametersSchema() {
        return JsonSchemas.parse("{\"type\":\"object\",\"properties\":{"
                + "\"runbook\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64},"
                + "\"host\":{\"type\":\"string\",\"maxLength\":253,"
                + "\"description\":\"the host to run it on, for runbooks that run on the alert's host\"},"
                + "\"arguments\":{\"type\":\"object\",\"description\":\"the runbook's declared parameters\"},"
                + "\"incident\":{\"type\":\"string\",\"description\":\"incident id (default: this run's incident)\"},"
                + "\"reason\":{\"type\":\"string\",\"maxLength\":1000},"
                + "\"confidence\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}},"
                + "\"required\":[\"runbook\"],\"additionalProperties\":false}");
    }

    @Override
    public Risk risk() {
        return Risk.APPROVE;
    }

    @Override
    public String execute(JsonNode args, ToolContext ctx) throws Exception {
        String name = args.get("runbook").asString();
        Runbooks.Runbook runbook = runbooks.find(name)
                .orElseThrow(() -> new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "unknown_runbook",
                        "no runbook '" + name + "' in " + runbooks.dir() + " (declared: "
                                + runbooks.list().stream()
                                        .map(Runbooks.Runbook::name)
                                        .toList() + ")"));
        Runbooks.Validated validated = Runbooks.validate(runbook, args.path("arguments"));
        if (!validated.problems().isEmpty()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR, "invalid_arguments", String.join("; ", validated.problems()));
        }
        String host = args.path("host").asString("").strip();
        if (runbook.target() == Runbooks.Target.ALERT_HOST) {
            if (host.isEmpty() || !host.equals(HostTarget.safe(host))) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "host_required",
                        "runbook '" + name + "' runs on the alert's host: give 'host' (a host name such as web-1)");
            }
            if (!runbook.allows(host)) {
                throw new ToolException(
                        FailureCategory.EXECUTION_ERROR,
                        "host_not_allowed",
                        "runbook '" + name + "' may not run on " + host + " (its hosts: " + runbook.hosts()
                                + "); nothing ran");
            }
        } else if (!host.isEmpty()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "local_runbook",
                    "runbook '" + name + "' runs on the platform's own machine, not on " + host
                            + "; choose a runbook whose target is alert-host");
        }
        Optional<Incident> incident =
                args.has("incident") ? incidents.get(args.get("incident").asString()) : incidents.forRun(ctx.runId());
        if (args.has("incident") && incident.isEmpty()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "unknown_incident",
                    "no incident '" + args.get("incident").asString() + "'");
        }
        if (incident.isEmpty() && runbook.requiresIncident()) {
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "incident_required",
                    "runbook '" + name + "' remediates an incident: open or find one first (incident_open)");
        }
        Writer writer = Writer.agent(ctx.agent(), ctx.runId());
        ObjectNode out = json.createObjectNode();
        out.put("runbook", name);
        if (!host.isEmpty()) {
            out.put("host", host);
        }
        if (incident.isPresent()) {
            String id = incident.get().id();
            out.put("incident", id);
            IncidentService.Claim claim = incidents.claimRemediation(id, name, ctx.runId(), ctx.callId(), writer);
            switch (claim) {
                case IncidentService.Claim.Granted g -> {}
                case IncidentService.Claim.AlreadyDone d -> {
                    out.put("status", "skipped");
                    out.put(
                            "reason",
                            "runbook '" + name + "' already ran for incident " + id + " at "
                                    + d.previous().path("startedAt").asString() + " (run "
                                    + d.previous().path("runId").asString() + "); not repeated within "
                                    + incidents.settings().remediationWindow()
                                    + ". If the problem persists, escalate to a human.");
                    return out.toString();
                }
                case IncidentService.Claim.WithHuman h -> {
                    out.put("status", "skipped");
                    out.put(
                            "reason",
                            "incident " + id + " is escalated: a human owns it; automated remediation is off");
                    return out.toString();
                }
                case IncidentService.Claim.Closed c -> {
                    out.put("status", "skipped");
                    out.put("reason", "incident " + id + " is " + c.incident().status() + "; nothing to remediate");
                    return out.toString();
                }
            }
        }
        Result result;
        try {
            result = host.isEmpty()
                    ? run(
                            runbook,
                            validated.values(),
                            ctx,
                            incident.map(Incident::id).orElse(""))
                    : remote(
                            runbook,
                            host,
                            validated.values(),
                            ctx,
                            incident.map(Incident::id).orElse(""));
        } catch (ToolException | RuntimeException | IOException e) {
            incident.ifPresent(i -> incidents.finishRemediation(i.id(), ctx.callId(), "failed", null, writer));
            throw e;
        } catch (InterruptedException e) {
            incident.ifPresent(i -> incidents.finishRemediation(i.id(), ctx.callId(), "interrupted", null, writer));
            throw e;
        }
        incident.ifPresent(i -> incidents.finishRemediation(
                i.id(), ctx.callId(), result.exitCode() == 0 ? "ok" : "failed", result.exitCode(), writer));
        if (result.exitCode() != 0) {
            String tail = result.output().length() > 150
                    ? "…" + result.output().substring(result.output().length() - 150)
                    : result.output();
            throw new ToolException(
                    FailureCategory.EXECUTION_ERROR,
                    "runbook_failed",
                    "runbook '" + name + "' exited with " + result.exitCode() + ": " + tail.strip());
        }
        out.put("status", "ok");
        out.put("exitCode", 0);
        out.put("durationMillis", result.millis());
        out.put("output", result.output());
        if (result.truncated()) {
            out.put("outputTruncated", true);
        }
        return out.toString();
    }

    private record Result(int exitCode, String output, boolean truncated, long millis) {}

    private Result remote(
            Runbooks.Runbook runbook, String host, Map<String, String> values, ToolContext ctx, String incident)
            throws ToolException, InterruptedException {
        Map<String, String> env = new java.util.LinkedHashMap<>();
        values.forEach((k, v) -> env.put("RUNBOOK_" + k.toUpperCase(Locale.ROOT), v));
        env.put("CADRE_RUN_ID", ctx.runId());
        env.put("CADRE_INCIDENT_ID", incident);
        env.put("CADRE_HOST", host);
        SshRunbookRunner.Result r = ssh.run(host, runbook.script(), values, env, runbook.timeout(), maxOutputChars);
        return new Result(r.exitCode(), r.output(), r.truncated(), r.millis());
    }

    private Result run(Runbooks.Runbook runbook, Map<String, String> values, ToolContext ctx, String incident)
            throws IOException, InterruptedException, ToolException {
        List<String> command = new ArrayList<>();
        command.add(runbook.script().toString());
        values.forEach((k, v) -> command.add("--" + k + "=" + v));
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(runbooks.dir().toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Map<String, String> env = pb.environment();
        // Built from an allowlist: a denylist of "secret-looking" names always misses one
        // (DATABASE_URL with a password in it, AWS_SESSION_..., a vendor's own naming).
        Map<String, String> inherited = new java.util.HashMap<>(env);
        env.clear();
        for (String name : passEnvironment) {
            String value = inherited.get(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        values.forEach((k, v) -> env.put("RUNBOOK_" + k.toUpperCase(Locale.ROOT), v));
        env.put("CADRE_RUN_ID", ctx.runId());
        env.put("CADRE_INCIDENT_ID", incident);
        long t0 = System.nanoTime();
        Process process = pb.start();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        boolean[] truncated = {false};
        Thread reader = Thread.ofVirtual().start(() -> drain(process.getInputStream(), captured, truncated));
        try {
            if (!process.waitFor(runbook.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
                throw new ToolException(
                        FailureCategory.TIMEOUT_ERROR,
                        "runbook_timeout",
                        "runbook '" + runbook.name() + "' did not finish within " + runbook.timeout() + "; killed");
            }
        } catch (InterruptedException e) {
            kill(process);
            throw e;
        }
        reader.join(2000);
        String output;
        synchronized (captured) {
            output = captured.toString(StandardCharsets.UTF_8);
        }
        if (output.length() > maxOutputChars) {
            output = output.substring(0, maxOutputChars);
            truncated[0] = true;
        }
        return new Result(process.exitValue(), output, truncated[0], (System.nanoTime() - t0) / 1_000_000);
    }

    private void drain(InputStream in, ByteArrayOutputStream captured, boolean[] truncated) {
        byte[] buf = new byte[8192];
        int limit = maxOutputChars * 4;
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                synchronized (captured) {
                    int room = limit - captured.size();
                    if (room > 0) {
                        captured.write(buf, 0, Math.min(room, n));
                    }
                    if (n > room) {
                        truncated[0] = true;
                    }
                }
            }
        } catch (IOException e) {
            // the process was killed: keep what was read
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
