/**
 * Versioned, optimistic-locking shared memory for agents: the {@link dev.cadre.memory.SharedMemory}
 * interface and its in-memory, JDBC and hybrid (PostgreSQL + Redis) backends.
 */
@NullMarked
package dev.cadre.memory;

import org.jspecify.annotations.NullMarked;
