/**
 * Read-only figures for the console and integrators: the overview of recent runs, misroute rates
 * per agent and the namespaces of shared memory, computed from the platform's tables.
 */
@NullMarked
package dev.cadre.platform.stats;

import org.jspecify.annotations.NullMarked;
