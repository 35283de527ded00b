package dev.cadre.platform.storage;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Makes an H2 database URL durable on commit. H2 acknowledges a commit at once but by default writes
 * it to the file up to {@code WRITE_DELAY} (500 ms) later, so a {@code kill -9} or an OOM kill loses
 * the writes of the last half second that clients were told had succeeded (issue 18: an accepted run
 * answered 404 after a restart and an approved runbook ran twice). With {@code WRITE_DELAY=0} every
 * commit is written to the file before it returns. H2 2.4 does not keep {@code SET WRITE_DELAY}
 * across a reopen of the database, so the setting belongs in the URL, where every open sees it.
 */
public final class H2Durability {

    private static final String SETTING = "WRITE_DELAY";

    private H2Durability() {}

    /**
     * The URL with {@code ;WRITE_DELAY=0} added when it names an H2 database that is not in memory;
     * any other URL unchanged.
     *
     * @throws IllegalArgumentException when the URL asks H2 for a write delay other than 0
     */
    public static @Nullable String durableUrl(@Nullable String url) {
        if (url == null || !url.regionMatches(true, 0, "jdbc:h2:", 0, 8) || url.regionMatches(true, 8, "mem:", 0, 4)) {
            return url;
        }
        String[] parts = url.split(";");
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq < 0
                    || !parts[i].substring(0, eq)
                            .strip()
                            .toUpperCase(Locale.ROOT)
                            .equals(SETTING)) {
                continue;
            }
            String value = parts[i].substring(eq + 1).strip();
            if (value.equals("0")) {
                return url;
            }
            throw new IllegalArgumentException("spring.datasource.url (CADRE_DATABASE_URL) sets " + SETTING + "="
                    + value + ": H2 would acknowledge commits up to " + value + " ms before writing them, and a"
                    + " crash would lose them. Remove " + SETTING + " from the URL (Cadre adds " + SETTING
                    + "=0) or set it to 0.");
        }
        return url.endsWith(";") ? url + SETTING + "=0" : url + ";" + SETTING + "=0";
    }
}
