package dev.cadre.platform.replay;

import dev.cadre.agent.run.AgentRunner;
import dev.cadre.platform.agents.AgentCatalog;
import dev.cadre.platform.agents.TeamLoader;
import dev.cadre.platform.runs.AgentRunners;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Candidate teams replays run against: a team YAML (or a directory of them) loaded into its own
 * catalog, exactly as the platform loads {@code cadre.agents.locations}, with a runner configured like
 * the platform's. One per replay, kept until the replay has ended.
 */
final class CandidateTeams implements AutoCloseable {

    /** The team value that means the platform's running team. */
    static final String RUNNING = "running";

    /** A loaded candidate: its catalog and the runner that executes its runs. */
    record Team(AgentCatalog catalog, AgentRunner runner) {}

    private final TeamLoader loader;
    private final AgentRunners runners;
    private final Map<String, Team> byReplay = new ConcurrentHashMap<>();

    CandidateTeams(TeamLoader loader, AgentRunners runners) {
        this.loader = loader;
        this.runners = runners;
    }

    /**
     * Loads the team at {@code path} (a YAML file, or a directory whose {@code *.yaml} are one team, or
     * several of them separated by commas, loaded together as one team: e.g. the shipped host team beside
     * a changed Kubernetes team, so one suite of both teams' cases replays against it); throws {@link
     * dev.cadre.platform.agents.AgentConfigException} or {@link IllegalArgumentException}.
     */
    AgentCatalog load(String path) {
        return loader.load(parts(path).stream().map(CandidateTeams::location).toList());
    }

    /** The paths of a team value: one, or several separated by commas. */
    static List<String> parts(String path) {
        return java.util.Arrays.stream(path.split(","))
                .map(String::strip)
                .filter(p -> !p.isEmpty())
                .toList();
    }

    /** The candidate team of {@code replayId}, loaded from {@code path} the first time it is asked. */
    Team forReplay(String replayId, String path) {
        return byReplay.computeIfAbsent(replayId, id -> {
            AgentCatalog catalog = load(path);
            return new Team(catalog, runners.build(catalog.tree()));
        });
    }

    /** Registers a team loaded for {@code replayId} (at its start). */
    Team register(String replayId, AgentCatalog catalog) {
        return byReplay.computeIfAbsent(replayId, id -> new Team(catalog, runners.build(catalog.tree())));
    }

    /** Closes the runner of an ended replay's team. */
    void release(String replayId) {
        Team t = byReplay.remove(replayId);
        if (t != null) {
            t.runner().close();
        }
    }

    @Override
    public void close() {
        byReplay.keySet().forEach(this::release);
    }

    static String location(String path) {
        Path p = Path.of(path).toAbsolutePath().normalize();
        if (Files.isDirectory(p)) {
            return "file:" + p + "/*.yaml";
        }
        String name = p.getFileName() == null ? "" : p.getFileName().toString();
        if (!(name.endsWith(".yaml") || name.endsWith(".yml"))) {
            throw new IllegalArgumentException(
                    "'" + path + "' is not a team YAML file (*.yaml) or a directory of them");
        }
        if (!Files.isRegularFile(p)) {
            throw new IllegalArgumentException("'" + path + "': no such file");
        }
        return "file:" + p;
    }
}
