package dev.cadre.memory.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/** The integration-test services answer: a real PostgreSQL query and a real Redis PING. */
class ExternalServicesIT {

    @Test
    void postgresAnswersQueriesInAFreshSchema() throws Exception {
        var pg = ExternalServices.postgres().freshSchema("it_probe");
        try (Connection c = pg.connect();
                ResultSet rs = c.createStatement().executeQuery("SELECT current_schema()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo(pg.schema());
        } finally {
            pg.dropSchema();
        }
    }

    @Test
    void redisAnswersPing() throws Exception {
        var redis = ExternalServices.redis();
        try (Socket s = new Socket(redis.host(), redis.port())) {
            s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            var reply = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            assertThat(reply.readLine()).isEqualTo("+PONG");
        }
    }
}
