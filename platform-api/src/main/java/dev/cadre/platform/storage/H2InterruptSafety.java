package dev.cadre.platform.storage;

import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Puts an H2 file database on H2's {@code async:} file system. The default one writes through a
 * {@code FileChannel}, which the JDK closes when the writing thread is interrupted; H2 then closes the
 * whole database and every later request fails until the process restarts (issue 23, finding 1: a
 * cancelled run's thread was interrupted inside a write). The {@code async:} file system writes
 * through an {@code AsynchronousFileChannel} and waits for each write without giving up on an
 * interrupt — H2's documented remedy. Runs are cancelled cooperatively as well (their threads are not
 * interrupted outside waits); this is the defence for any other thread that may be interrupted.
 */
public final class H2InterruptSafety {

    private H2InterruptSafety() {}

    /**
     * The URL with its file path on the {@code async:} file system when it names an H2 database in a
     * plain file ({@code jdbc:h2:file:...} or a bare path); any other URL (in memory, a server, another
     * file system chosen on purpose, another database) unchanged.
     */
    public static @Nullable String interruptSafeUrl(@Nullable String url) {
        if (url == null || !url.regionMatches(true, 0, "jdbc:h2:", 0, 8)) {
            return url;
        }
        String rest = url.substring(8);
        if (rest.toLowerCase(Locale.ROOT).startsWith("file:")) {
            return "jdbc:h2:async:" + rest.substring(5);
        }
        int semicolon = rest.indexOf(';');
        String name = semicolon < 0 ? rest : rest.substring(0, semicolon);
        boolean windowsDrive = name.length() > 2
                && Character.isLetter(name.charAt(0))
                && name.charAt(1) == ':'
                && (name.charAt(2) == '/' || name.charAt(2) == '\\');
        // A bare path has no file-system prefix ("mem:", "tcp:", "nio:", "async:", ...).
        if (!name.isEmpty() && (windowsDrive || name.indexOf(':') < 0)) {
            return "jdbc:h2:async:" + rest;
        }
        return url;
    }
}
