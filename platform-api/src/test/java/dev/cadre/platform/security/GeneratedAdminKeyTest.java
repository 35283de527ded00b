package dev.cadre.platform.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cadre.platform.support.Api;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A first start without a bootstrap key creates an admin key: its secret goes to a file only the
 * process owner can read, and the log says where — the secret itself is never in stdout or the log
 * (in Kubernetes the pod log is read by many).
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.datasource.url=jdbc:h2:mem:generated-admin-key;DB_CLOSE_DELAY=-1;MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH",
            "cadre.security.bootstrap-api-key=",
            "cadre.security.admin-key-file=" + GeneratedAdminKeyTest.FILE,
            "cadre.retention.enabled=false"
        })
@ExtendWith(OutputCaptureExtension.class)
class GeneratedAdminKeyTest {

    static final String FILE = "target/generated-admin-key/data/admin-key";

    static {
        // Before the context starts: a file left by an earlier run proves nothing.
        try {
            Files.deleteIfExists(Path.of(FILE));
        } catch (java.io.IOException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @LocalServerPort
    int port;

    @Test
    void theGeneratedKey_isInAFileOnlyTheOwnerReads_andTheLogSaysWhereNotWhat(CapturedOutput output) throws Exception {
        Path file = Path.of(FILE).toAbsolutePath().normalize();
        assertThat(file).isRegularFile();
        assertThat(Files.getPosixFilePermissions(file))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        String secret = Files.readString(file).strip();
        assertThat(secret).hasSizeGreaterThanOrEqualTo(32);

        assertThat(new Api(port).get("/api/v1/keys", secret).status()).isEqualTo(200);
        assertThat(output.getAll()).contains(file.toString()).doesNotContain(secret);
    }
}
