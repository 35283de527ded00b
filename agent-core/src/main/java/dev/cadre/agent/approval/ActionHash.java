package dev.cadre.agent.approval;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import tools.jackson.databind.JsonNode;

/**
 * The identity of an action a human approves: SHA-256 (lower-case hex) of the tool's name, a newline
 * and the {@link CanonicalJson} text of its arguments. An approval is bound to this hash, so a
 * decision taken on one action never lets another (other tool, other arguments) run; and the record
 * of what ran can keep the hash instead of arguments that may hold a secret.
 */
public final class ActionHash {

    private ActionHash() {}

    /** The hash of calling {@code tool} with {@code arguments}. */
    public static String of(String tool, JsonNode arguments) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(tool.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
            sha.update(CanonicalJson.write(arguments).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
