/**
 * The scripted model: deterministic replies per agent from a declarative script, used by the
 * embedded demo, the tests and the benchmarks. See {@link dev.cadre.agent.scripted.ScriptedModel}
 * for the script format.
 */
@NullMarked
package dev.cadre.agent.scripted;

import org.jspecify.annotations.NullMarked;
