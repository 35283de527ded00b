/**
 * Shared memory on the platform: all of {@code /api/v1/memory/**} (entries with ETag/If-Match,
 * history, namespaces, change streams), the memory tools agents call, and the backend's wiring.
 */
@NullMarked
package dev.cadre.platform.memory;

import org.jspecify.annotations.NullMarked;
