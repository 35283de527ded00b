package dev.cadre.platform.tenancy;

import java.time.Instant;

/** A team as stored: its name, a title for people, and who created it when. */
public record Team(TeamId id, String title, Instant createdAt, String createdBy) {}
