package dev.cadre.platform.a2a;

import dev.cadre.platform.web.PageCursor;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * A ListTasks {@code pageToken}: where the previous page ended in the newest-first run list (keyset
 * paging, so a page costs the same however deep it is and tasks arriving meanwhile cannot shift
 * it) and how many tasks earlier pages handed out (for {@code totalSize}). Clients see an opaque
 * string; its form may change between versions.
 *
 * @param after the last run the previous page returned or looked at
 * @param handedOut tasks returned by the earlier pages together
 */
record TaskPageToken(PageCursor after, int handedOut) {

    private static final String VERSION = "t1";

    String encode() {
        String raw = VERSION + ":" + handedOut + ":" + after.encode();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** Empty when {@code token} is not one this server handed out. */
    static Optional<TaskPageToken> decode(String token) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(token.trim()), StandardCharsets.UTF_8);
            String[] parts = raw.split(":", 3);
            if (parts.length != 3 || !parts[0].equals(VERSION)) {
                return Optional.empty();
            }
            int handedOut = Integer.parseInt(parts[1]);
            if (handedOut < 0) {
                return Optional.empty();
            }
            return PageCursor.decode(parts[2]).map(c -> new TaskPageToken(c, handedOut));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
