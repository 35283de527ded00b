/**
 * Model providers behind agent-core's model port: Spring AI chat models, their configuration
 * and the mapping of provider errors.
 */
@NullMarked
package dev.cadre.platform.models;

import org.jspecify.annotations.NullMarked;
