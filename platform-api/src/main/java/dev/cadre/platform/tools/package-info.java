/**
 * The operations tools agents may call: host metrics, HTTP probes, Prometheus queries,
 * runbooks, notifications, MCP servers and asking a human.
 */
@NullMarked
package dev.cadre.platform.tools;

import org.jspecify.annotations.NullMarked;
