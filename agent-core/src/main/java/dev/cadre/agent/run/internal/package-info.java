/** The loop's implementation: not API, may change without notice. */
@NullMarked
package dev.cadre.agent.run.internal;

import org.jspecify.annotations.NullMarked;
