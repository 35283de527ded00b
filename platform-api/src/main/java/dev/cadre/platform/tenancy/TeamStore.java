package dev.cadre.platform.tenancy;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/** The only class that reads or writes {@code cadre_team}: the teams that exist. */
@Component
public class TeamStore {

    private final JdbcClient jdbc;
    private final Clock clock;

    TeamStore(JdbcClient jdbc, Clock clock) {
        this.jdbc = jdbc;
        this.clock = clock;
    }

    /** Creates team {@code id}; false when it exists already (names are never reused). */
    public boolean create(TeamId id, String title, String createdBy) {
        try {
            return jdbc.sql("INSERT INTO cadre_team (name, title, created_at, created_by) VALUES (?, ?, ?, ?)")
                            .params(id.name(), title, Timestamp.from(clock.instant()), createdBy)
                            .update()
                    == 1;
        } catch (DuplicateKeyException exists) {
            return false;
        }
    }

    public Optional<Team> find(TeamId id) {
        return jdbc.sql("SELECT name, title, created_at, created_by FROM cadre_team WHERE name = ?")
                .param(id.name())
                .query(TeamStore::row)
                .optional();
    }

    public boolean exists(TeamId id) {
        return find(id).isPresent();
    }

    /** All teams by name. */
    public List<Team> list() {
        return jdbc.sql("SELECT name, title, created_at, created_by FROM cadre_team ORDER BY name")
                .query(TeamStore::row)
                .list();
    }

    private static Team row(ResultSet rs, int i) throws SQLException {
        return new Team(
                new TeamId(rs.getString("name")),
                rs.getString("title"),
                rs.getTimestamp("created_at").toInstant(),
                rs.getString("created_by"));
    }
}
