/**
 * The database as storage: durability of an H2 file database, table sizes and day partitions on
 * PostgreSQL, for retention and the storage budget.
 */
@NullMarked
package dev.cadre.platform.storage;

import org.jspecify.annotations.NullMarked;
