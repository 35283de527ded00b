package dev.cadre.platform.security;

import dev.cadre.platform.tenancy.TeamId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EnumType;
import jakarta.persistence.Enumerated;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

@Entity
@Table(name = "cadre_api_key")
class ApiKeyEntity {

    @Id
    private String id;

    private String name;

    // The normalised name the unique index holds (V25): the name itself for keys created since.
    @Column(name = "name_key")
    private String nameKey;

    @Column(name = "key_prefix")
    private String keyPrefix;

    @Column(name = "key_hash")
    private String keyHash;

    @Enumerated(EnumType.STRING)
    private Role role;

    @Column(name = "created_at")
    private Instant createdAt;

    @Column(name = "created_by")
    private String createdBy;

    @Column(name = "last_used_at")
    private Instant lastUsedAt;

    @Column(name = "revoked_at")
    private Instant revokedAt;

    // The team the key acts in (V50: keys from before teams are team 'default's).
    private String team;

    // Spans all teams: manages teams and may act in any (V50: the admin keys from before teams).
    @Column(name = "platform_admin")
    private boolean platformAdmin;

    protected ApiKeyEntity() {}

    ApiKeyEntity(
            String id,
            String name,
            String keyPrefix,
            String keyHash,
            Role role,
            TeamId team,
            boolean platformAdmin,
            Instant createdAt,
            String createdBy) {
        this.id = id;
        this.team = team.name();
        this.platformAdmin = platformAdmin;
        this.name = name;
        this.nameKey = name;
        this.keyPrefix = keyPrefix;
        this.keyHash = keyHash;
        this.role = role;
        this.createdAt = createdAt;
        this.createdBy = createdBy;
    }

    String id() {
        return id;
    }

    String name() {
        return name;
    }

    String keyPrefix() {
        return keyPrefix;
    }

    String keyHash() {
        return keyHash;
    }

    Role role() {
        return role;
    }

    TeamId team() {
        return new TeamId(team);
    }

    boolean platformAdmin() {
        return platformAdmin;
    }

    /** The principal this key authenticates as. */
    CadrePrincipal principal() {
        return new CadrePrincipal(name, role, id, team(), platformAdmin);
    }

    Instant createdAt() {
        return createdAt;
    }

    String createdBy() {
        return createdBy;
    }

    Instant lastUsedAt() {
        return lastUsedAt;
    }

    Instant revokedAt() {
        return revokedAt;
    }

    void markUsed(Instant at) {
        this.lastUsedAt = at;
    }

    void revoke(Instant at) {
        this.revokedAt = at;
    }

    /** The bootstrap key takes a new secret: the same identity, the old secret stops working. */
    void rotate(String newHash) {
        this.keyHash = newHash;
        this.revokedAt = null;
    }
}
