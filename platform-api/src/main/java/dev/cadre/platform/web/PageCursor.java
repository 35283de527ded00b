package dev.cadre.platform.web;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * Where a page of a newest-first list ended: the (created_at, id) of its last item, for keyset
 * paging. Clients see it as an opaque token ({@code nextCursor}); its form may change between
 * versions.
 */
public record PageCursor(Instant createdAt, String id) {

    private static final String VERSION = "c1";
    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999999Z");

    /** The {@code cursor} request parameter, or null when absent; 400 naming it when not one of ours. */
    public static @org.jspecify.annotations.Nullable PageCursor param(@org.jspecify.annotations.Nullable String token) {
        if (token == null || token.isBlank()) {
            return null;
        }
        return decode(token.trim())
                .orElseThrow(() -> ApiProblem.badField(
                                "cursor", "not a cursor this server handed out (use nextCursor of the previous page)")
                        .with("parameter", "cursor"));
    }

    /** 400 for {@code offset} > 0: offset paging costs more the deeper the page, so it is gone. */
    public static void refuseOffset(int offset) {
        if (offset > 0) {
            throw ApiProblem.badField(
                            "offset",
                            "offset paging is gone (its cost grew with every page); pass the nextCursor of the"
                                    + " previous page as cursor")
                    .with("parameter", "offset");
        }
    }

    public String encode() {
        String raw = VERSION + ":" + createdAt.getEpochSecond() + ":" + createdAt.getNano() + ":" + id;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
    }

    /** Empty when {@code token} is not a cursor this server handed out. */
    public static Optional<PageCursor> decode(String token) {
        try {
            String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            String[] parts = raw.split(":", 4);
            if (parts.length != 4 || !parts[0].equals(VERSION) || parts[3].isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new PageCursor(
                    Instant.ofEpochSecond(Long.parseLong(parts[1]), Long.parseLong(parts[2])), parts[3]));
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            return Optional.empty();
        }
    }
}
