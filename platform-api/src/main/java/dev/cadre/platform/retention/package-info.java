/**
 * Retention of what the platform stores: age limits per kind, an optional storage budget on
 * PostgreSQL, one instance at a time, removing through each table's owner.
 */
@NullMarked
package dev.cadre.platform.retention;

import org.jspecify.annotations.NullMarked;
