/**
 * What makes several instances one cluster: instance naming, the shared Redis and the run
 * queue the instances share. Depends on runs; runs does not know it.
 */
@NullMarked
package dev.cadre.platform.cluster;

import org.jspecify.annotations.NullMarked;
