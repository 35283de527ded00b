package dev.cadre.platform.incidents;

/** What happened to an incident, one timeline entry each. */
public enum TimelineKind {
    OPENED,
    SIGHTING,
    ESCALATED,
    RUN_STARTED,
    FINDINGS,
    APPROVAL_REQUESTED,
    APPROVAL_DECIDED,
    ACTION_EXECUTED,
    ACTION_VERIFIED,
    NOTIFICATION_SENT,
    NOTIFICATION_FAILED,
    ACKNOWLEDGED,
    ASSIGNED,
    COMMENTED,
    RESOLVED,
    REOPENED
}
