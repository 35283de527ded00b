/** Small helpers shared by agent-core's packages: not API. */
@NullMarked
package dev.cadre.agent.internal;

import org.jspecify.annotations.NullMarked;
