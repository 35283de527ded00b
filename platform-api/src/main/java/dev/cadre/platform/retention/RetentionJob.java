package dev.cadre.platform.retention;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Runs retention every {@code cadre.retention.interval} (first a minute after start-up, so a
 * restart does not wait an hour for partitions of the coming days); off with {@code
 * cadre.retention.enabled=false}.
 */
final class RetentionJob {

    private static final Logger log = LoggerFactory.getLogger(RetentionJob.class);

    private final RetentionService service;
    private final boolean enabled;

    RetentionJob(RetentionService service, boolean enabled) {
        this.service = service;
        this.enabled = enabled;
    }

    @Scheduled(
            fixedDelayString = "${cadre.retention.interval:PT1H}",
            initialDelayString = "${cadre.retention.initial-delay:PT1M}")
    public void run() {
        if (!enabled) {
            return;
        }
        try {
            RetentionService.Pass pass = service.runOnce();
            if (!pass.failures().isEmpty()) {
                log.warn("Retention pass incomplete: {}", pass.failures());
            }
        } catch (RuntimeException e) {
            log.warn("Retention pass failed: {}", e.getMessage(), e);
        }
    }
}
