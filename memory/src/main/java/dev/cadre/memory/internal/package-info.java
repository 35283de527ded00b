/** Implementation details of the memory backends; not an API, may change without notice. */
@NullMarked
package dev.cadre.memory.internal;

import org.jspecify.annotations.NullMarked;
