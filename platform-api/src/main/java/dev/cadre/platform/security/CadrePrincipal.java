package dev.cadre.platform.security;

import dev.cadre.platform.web.KeyedCaller;

/**
 * Who is calling: the API key (a console session carries the key it logged in with), its name and
 * role. Decisions about who may do what compare {@code keyId} ({@link #actor()}); the name is for
 * display.
 */
public record CadrePrincipal(String name, Role role, String keyId) implements KeyedCaller {

    /** The caller as an actor whose identity is its key id. */
    public Actor actor() {
        return new Actor(keyId, name);
    }

    @Override
    public String toString() {
        return name;
    }
}
