package dev.cadre.platform.security;

/** Who is calling: the API key's (or console session's) name and role. */
public record CadrePrincipal(String name, Role role, String keyId) {

    @Override
    public String toString() {
        return name;
    }
}
