package dev.cadre.platform.web;

/**
 * An authenticated caller known by the id of its API key (a console session by the key it logged
 * in with). Per-key limits count by this id, never by a name: the security package's principal is
 * one, and web cannot depend on security (security depends on web).
 */
public interface KeyedCaller {

    /** The id of the caller's API key. */
    String keyId();
}
