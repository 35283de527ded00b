package dev.cadre.platform.replay;

import dev.cadre.agent.Failure;
import dev.cadre.agent.FailureCategory;
import dev.cadre.platform.runs.RunPreparer;
import dev.cadre.platform.runs.RunRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Before a run executes or is resumed: a replay run executes with its tools answering from its
 * recording (and by its candidate team's runner). A replay run this instance does not hold in memory
 * (after a {@code kill -9} and restart, or queued by another instance) is registered again from its
 * durable row, case and team; when that cannot be done it is refused and fails with {@code
 * replay_not_resumable}. Either way a replay never executes as an ordinary run with real tools.
 */
final class ReplayPreparer implements RunPreparer {

    private static final Logger log = LoggerFactory.getLogger(ReplayPreparer.class);

    private final ReplayRuns replays;
    private final ReplayStore store;
    private final CandidateTeams teams;
    // The tools were checked when the replay started; a restart only needs the recording back.
    private final CaseFile lenient = new CaseFile(name -> true);

    ReplayPreparer(ReplayRuns replays, ReplayStore store, CandidateTeams teams) {
        this.replays = replays;
        this.store = store;
        this.teams = teams;
    }

    @Override
    public Preparation prepare(RunRecord run) {
        var held = replays.entry(run.id());
        if (held.isPresent()) {
            return held.get().runner() == null
                    ? Preparation.Standard.INSTANCE
                    : new Preparation.Runner(held.get().runner());
        }
        var row = store.findRun(run.id()).orElse(null);
        if (row == null) {
            return Preparation.Standard.INSTANCE;
        }
        try {
            IncidentCase c = lenient.read(row.caseName(), row.caseYaml());
            if (row.team().equals(CandidateTeams.RUNNING)) {
                replays.begin(run.id(), c);
                log.info("Replay run {} (case {}) registered again from its recording", run.id(), row.caseName());
                return Preparation.Standard.INSTANCE;
            }
            var team = teams.forReplay(row.replayId(), row.team());
            if (!team.catalog().runnable(run.agent())) {
                return refused(row, "its team " + row.team() + " no longer has agent '" + run.agent() + "'");
            }
            replays.begin(run.id(), c, team.runner());
            log.info(
                    "Replay run {} (case {}, team {}) registered again from its recording",
                    run.id(),
                    row.caseName(),
                    row.team());
            return new Preparation.Runner(team.runner());
        } catch (RuntimeException e) {
            return refused(row, e.getMessage());
        }
    }

    private static Preparation refused(ReplayStore.RunRow row, String why) {
        return new Preparation.Refused(new Failure(
                FailureCategory.ORCHESTRATION_ERROR,
                "replay_not_resumable",
                "replay run of case '" + row.caseName() + "' (replay " + row.replayId()
                        + ") is never resumed as an ordinary run and its recording cannot be registered again: "
                        + String.valueOf(why).lines().findFirst().orElse("") + "; start the replay again"));
    }
}
