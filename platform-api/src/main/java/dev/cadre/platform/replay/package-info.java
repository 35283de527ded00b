/**
 * Recorded incidents as test cases (issue 25): a finished run exported as an {@link
 * dev.cadre.platform.replay.IncidentCase} with the operator's expectations, read and validated by
 * {@link dev.cadre.platform.replay.CaseFile}, and the recorded tool answers a replay looks up ({@link
 * dev.cadre.platform.replay.Recordings}).
 */
@NullMarked
package dev.cadre.platform.replay;

import org.jspecify.annotations.NullMarked;
