/**
 * The model port: the sealed message hierarchy, tool calls and definitions, and the small interface
 * a model provider implements (the scripted model here, a Spring AI adapter in platform-api).
 */
@NullMarked
package dev.cadre.agent.model;

import org.jspecify.annotations.NullMarked;
