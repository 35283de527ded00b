package dev.cadre.agent.run.internal;

import dev.cadre.agent.Failure;
import dev.cadre.agent.OutcomeStatus;

/** Why a scope was stopped: cancellation, a timeout, or a stopping parent. */
public record StopReason(OutcomeStatus status, Failure failure) {}
