/**
 * Read-only figures for the console and integrators: the overview of recent runs and misroute
 * rates per agent, read through the query methods of the stores that own the runs, approvals and
 * spans tables.
 */
@NullMarked
package dev.cadre.platform.stats;

import org.jspecify.annotations.NullMarked;
