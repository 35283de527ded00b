/**
 * Run events (DESIGN.md section 2): a sealed set of records, each stamped with run id, session id,
 * parent session id and a per-session sequence number so a stream can be resumed.
 */
@NullMarked
package dev.cadre.agent.event;

import org.jspecify.annotations.NullMarked;
