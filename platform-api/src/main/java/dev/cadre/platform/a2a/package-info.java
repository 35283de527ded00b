/**
 * The A2A protocol face of the platform: the agent card, JSON-RPC methods and task streams,
 * mapped onto runs.
 */
@NullMarked
package dev.cadre.platform.a2a;

import org.jspecify.annotations.NullMarked;
