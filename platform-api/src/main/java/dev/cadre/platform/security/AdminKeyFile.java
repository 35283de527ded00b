package dev.cadre.platform.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Where a generated admin key is handed over: a file created readable and writable by the process
 * owner only (mode 0600 from its first byte, never widened afterwards), replaced atomically, so the
 * secret is never in a log, stdout or a world-readable file.
 */
final class AdminKeyFile {

    private AdminKeyFile() {}

    static void write(Path file, String secret) throws IOException {
        Path target = file.toAbsolutePath().normalize();
        Path dir = target.getParent();
        Files.createDirectories(dir);
        boolean posix = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
        // Created with the final mode (not chmod-ed after writing): no moment in which others may read it.
        Path temp = posix
                ? Files.createTempFile(
                        dir,
                        ".admin-key",
                        ".tmp",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                : Files.createTempFile(dir, ".admin-key", ".tmp");
        try {
            Files.writeString(temp, secret + "\n", StandardCharsets.UTF_8);
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
