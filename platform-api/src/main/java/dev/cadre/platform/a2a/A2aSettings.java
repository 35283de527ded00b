package dev.cadre.platform.a2a;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the A2A server ({@code cadre.a2a.*}).
 *
 * @param publicUrl the base URL other agents reach Cadre at (e.g. behind a proxy); null derives it
 *     from each request
 * @param defaultAgent the agent a task goes to when the message names none
 * @param blockingTimeout how long a blocking {@code SendMessage} waits before answering with the
 *     task as it stands
 * @param version the version the Agent Card announces
 */
record A2aSettings(@Nullable String publicUrl, String defaultAgent, Duration blockingTimeout, String version) {}
