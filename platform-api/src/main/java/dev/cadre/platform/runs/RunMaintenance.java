package dev.cadre.platform.runs;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The background work that keeps runs honest: renew this instance's leases (and stop runs it lost
 * or that ended elsewhere), end runs waiting past their deadline, and re-enqueue runs whose
 * executor stopped renewing — a crashed instance, a message lost with Redis — so none waits forever.
 */
public final class RunMaintenance {

    private static final Logger log = LoggerFactory.getLogger(RunMaintenance.class);

    private final RunService runs;
    private final RunExecutor executor;
    private final Duration leaseTtl;
    private final RunDeadlines deadlines;

    RunMaintenance(RunService runs, RunExecutor executor, RunDeadlines deadlines, Duration leaseTtl) {
        this.deadlines = deadlines;
        this.runs = runs;
        this.executor = executor;
        this.leaseTtl = leaseTtl;
    }

    @Scheduled(fixedDelayString = "${cadre.runs.heartbeat-interval:PT5S}")
    public void heartbeat() {
        try {
            executor.heartbeat();
        } catch (RuntimeException e) {
            log.warn("Lease heartbeat failed: {}", e.getMessage());
        }
    }

    @Scheduled(
            fixedDelayString = "${cadre.runs.sweep-interval:PT5S}",
            initialDelayString = "${cadre.runs.sweep-interval:PT5S}")
    public void sweep() {
        try {
            // Before recovery, so a run past its deadline is failed rather than re-enqueued.
            int expired = deadlines.sweep();
            if (expired > 0) {
                log.info("Ended {} queued runs past their deadline", expired);
            }
            int n = runs.recover(false, leaseTtl);
            if (n > 0) {
                log.info("Re-enqueued {} runs whose executor went silent", n);
            }
        } catch (RuntimeException e) {
            log.warn("Run sweep failed: {}", e.getMessage());
        }
    }
}
