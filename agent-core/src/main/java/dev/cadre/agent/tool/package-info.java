/**
 * Tools: the interface a tool implements, its risk, the registry and its whitelisted copies, argument
 * validation against a JSON schema, and the structured result every call becomes.
 */
@NullMarked
package dev.cadre.agent.tool;

import org.jspecify.annotations.NullMarked;
