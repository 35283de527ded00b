/**
 * Evaluation of an orchestrator's routing (seed 003's evaluation measures, seed 004's misroute
 * rate): suites of cases with the workers each should reach, run as ordinary runs and scored.
 * {@link dev.cadre.platform.evals.EvalStore} owns {@code cadre_eval}.
 */
@NullMarked
package dev.cadre.platform.evals;

import org.jspecify.annotations.NullMarked;
