package dev.cadre.platform.retention;

/** What retention removes, one label value of {@code cadre_retention_*_total{kind}} each. */
public enum RetentionKind {
    RUNS("runs"),
    EVENTS("events"),
    SPANS("spans"),
    AUDIT("audit"),
    APPROVALS("approvals"),
    TOOL_JOURNAL("tool_journal"),
    MEMORY_HISTORY("memory_history"),
    MEMORY_REQUEST_IDS("memory_request_ids"),
    INCIDENT_RUN_LINKS("incident_run_links"),
    /** Timeline entries of incidents resolved longer ago than {@code cadre.retention.incident-events}. */
    INCIDENT_EVENTS("incident_events"),
    /** Delivery keys of incident notifications older than the duplicate window. */
    INCIDENT_DELIVERIES("incident_deliveries"),
    /** Hourly rollup rows of the statistics older than their longest window. */
    ROLLUPS("rollups");

    private final String wire;

    RetentionKind(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }
}
