/**
 * Authentication and authorization: API keys ({@code cadre_api_key}), roles, console sessions
 * and the security filter chain.
 */
@NullMarked
package dev.cadre.platform.security;

import org.jspecify.annotations.NullMarked;
