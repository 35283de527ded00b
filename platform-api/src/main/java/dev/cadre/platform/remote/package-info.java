/**
 * Remote agents reached over A2A, offered to local agents as tools.
 */
@NullMarked
package dev.cadre.platform.remote;

import org.jspecify.annotations.NullMarked;
