package dev.cadre.platform.security;

import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.tenancy.TeamId;
import dev.cadre.platform.tenancy.TeamScope;
import dev.cadre.platform.tenancy.TeamStore;
import dev.cadre.platform.web.ApiProblem;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.text.Normalizer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issues, checks and revokes API keys. Secrets are random 192-bit strings shown once; only their
 * SHA-256 is stored (a slow password hash buys nothing for high-entropy secrets and would cost a
 * hash per request).
 */
@Service
public class ApiKeyService {

    private static final Logger log = LoggerFactory.getLogger(ApiKeyService.class);
    private static final String SECRET_PREFIX = "cadre_";
    static final String BOOTSTRAP_NAME = "bootstrap";
    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();
    // Recording every use would turn each read request into a write; a minute is precise enough.
    private static final Duration LAST_USED_RESOLUTION = Duration.ofMinutes(1);

    // Bounds memory if someone presents many valid keys; a full cache is simply emptied.
    private static final int MAX_CACHED_KEYS = 10_000;
    // C0 and C1 controls, DEL, and the Unicode line/paragraph separators and bidi overrides, which
    // let a name forge lines in logs or hide what it says in the console.
    private static final Pattern CONTROL =
            Pattern.compile("[\\p{Cntrl}\\u0080-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069]");

    private final ApiKeyRepository keys;
    private final TeamStore teams;
    private final AuditLog audit;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final Duration cacheTtl;
    private final java.nio.file.Path adminKeyFile;
    private final SecureRandom random = new SecureRandom();
    // Valid keys recently seen, by hash: a database lookup per request was the largest single CPU
    // cost of a request (docs/benchmarks/service.md). Unknown keys are never cached.
    private final Map<String, Cached> cache = new ConcurrentHashMap<>();
    // The same, by key id, for console sessions: each request of a session re-checks the key that
    // logged in, so revoking the key ends the session.
    private final Map<String, Cached> byId = new ConcurrentHashMap<>();

    private record Cached(CadrePrincipal principal, Instant until) {}

    ApiKeyService(
            ApiKeyRepository keys,
            TeamStore teams,
            AuditLog audit,
            Clock clock,
            PlatformTransactionManager transactionManager,
            @Value("${cadre.security.key-cache-ttl:PT5S}") Duration cacheTtl,
            @Value("${cadre.security.admin-key-file:data/admin-key}") String adminKeyFile) {
        this.keys = keys;
        this.teams = teams;
        this.audit = audit;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.cacheTtl = cacheTtl;
        this.adminKeyFile = java.nio.file.Path.of(adminKeyFile);
    }

    /** A key just created: the only moment its secret is visible. */
    public record CreatedKey(ApiKeyView key, String secret) {}

    /**
     * A key as listed: never its secret, any part of it, or its hash; the id tells keys apart. It
     * acts in {@code team} with {@code role}; a platform admin key may also act in any team.
     */
    public record ApiKeyView(
            String id,
            String name,
            Role role,
            String team,
            boolean platformAdmin,
            Instant createdAt,
            String createdBy,
            Instant lastUsedAt,
            Instant revokedAt) {}

    /**
     * The principal of a valid, unrevoked key. A key revoked on this instance stops working at once;
     * revoked on another instance, within {@code cadre.security.key-cache-ttl} (5 s by default).
     */
    public Optional<CadrePrincipal> authenticate(String secret) {
        if (secret == null || secret.isBlank() || secret.length() > 200) {
            return Optional.empty();
        }
        String h = hash(secret.trim());
        Instant now = clock.instant();
        Cached cached = cache.get(h);
        if (cached != null && cached.until().isAfter(now)) {
            return Optional.of(cached.principal());
        }
        Optional<CadrePrincipal> found = transactions.execute(tx -> keys.findByKeyHash(h)
                .filter(k -> k.revokedAt() == null)
                .map(k -> {
                    if (k.lastUsedAt() == null
                            || k.lastUsedAt().plus(LAST_USED_RESOLUTION).isBefore(now)) {
                        k.markUsed(now);
                    }
                    return k.principal();
                }));
        if (found == null || found.isEmpty()) {
            cache.remove(h);
            return Optional.empty();
        }
        if (!cacheTtl.isZero() && !cacheTtl.isNegative()) {
            if (cache.size() >= MAX_CACHED_KEYS) {
                cache.clear();
            }
            cache.put(h, new Cached(found.get(), now.plus(cacheTtl)));
        }
        return found;
    }

    /**
     * The role of key {@code keyId} (revoked or not), or empty when there is no such key (an actor of
     * the platform itself). A run records its submitter's key id, so this is the role it ran under.
     */
    public Optional<Role> roleOfKey(@Nullable String keyId) {
        if (keyId == null) {
            return Optional.empty();
        }
        Optional<Role> role = transactions.execute(tx -> keys.findById(keyId).map(ApiKeyEntity::role));
        return role == null ? Optional.empty() : role;
    }

    /**
     * The id and name of the revoked key {@code secret} belongs to, for the audit record of its use;
     * empty for a secret no key ever had. Called only once authentication failed.
     */
    public Optional<CadrePrincipal> revokedKey(String secret) {
        if (secret == null || secret.isBlank() || secret.length() > 200) {
            return Optional.empty();
        }
        String h = hash(secret.trim());
        Optional<CadrePrincipal> found = transactions.execute(
                tx -> keys.findByKeyHash(h).filter(k -> k.revokedAt() != null).map(ApiKeyEntity::principal));
        return found == null ? Optional.empty() : found;
    }

    /**
     * The principal of key {@code keyId} while it is unrevoked: what a console session logged in
     * with. Same cache and the same revocation bound as {@link #authenticate}.
     */
    public Optional<CadrePrincipal> activeKey(String keyId) {
        Instant now = clock.instant();
        Cached cached = byId.get(keyId);
        if (cached != null && cached.until().isAfter(now)) {
            return Optional.of(cached.principal());
        }
        Optional<CadrePrincipal> found = transactions.execute(
                tx -> keys.findById(keyId).filter(k -> k.revokedAt() == null).map(ApiKeyEntity::principal));
        if (found == null || found.isEmpty()) {
            byId.remove(keyId);
            return Optional.empty();
        }
        if (!cacheTtl.isZero() && !cacheTtl.isNegative()) {
            if (byId.size() >= MAX_CACHED_KEYS) {
                byId.clear();
            }
            byId.put(keyId, new Cached(found.get(), now.plus(cacheTtl)));
        }
        return found;
    }

    /**
     * Creates a key. Its name must be unique among all keys ever created (revoked ones included):
     * the name is who the audit log, runs and approvals say acted, so a new key must never read as
     * an old one (decisions compare key ids, {@link Actor}, never names). Names are lower-cased
     * (after NFKC) and then limited to {@code [a-z0-9._-]}: no two accepted names can look alike
     * (no Cyrillic {@code о} for a Latin {@code o}, no {@code Bootstrap} beside {@code bootstrap}),
     * and a unique index on the normalised name settles concurrent creates.
     */
    @Transactional
    public CreatedKey create(String name, Role role, String actor) {
        return create(name, role, TeamId.DEFAULT, false, actor);
    }

    /**
     * Creates a key acting in {@code team} with {@code role}, a platform admin (spanning all teams)
     * when {@code platformAdmin}; names are unique across all teams, as {@link #create(String, Role,
     * String)} says. 400 naming {@code team} when there is no such team.
     */
    @Transactional
    public CreatedKey create(String name, Role role, TeamId team, boolean platformAdmin, String actor) {
        String normal = normalisedName(name);
        if (!teams.exists(team)) {
            throw ApiProblem.badField("team", "there is no team '" + team + "'; an admin creates teams first")
                    .with("value", team.name());
        }
        if (platformAdmin && role != Role.ADMIN) {
            throw ApiProblem.badField("platformAdmin", "only a key with role admin can be a platform admin");
        }
        if (RESERVED_NAMES.contains(normal)) {
            throw ApiProblem.badField(
                            "name",
                            "'" + normal + "' is reserved for the platform (reserved: "
                                    + RESERVED_NAMES.stream().sorted().toList() + ")")
                    .with("value", normal);
        }
        return insert(normal, role, team, platformAdmin, actor);
    }

    private CreatedKey insert(String normal, Role role, TeamId team, boolean platformAdmin, String actor) {
        if (keys.existsByNameKey(normal)) {
            throw nameTaken(normal);
        }
        String secret = newSecret();
        ApiKeyEntity entity = new ApiKeyEntity(
                UUID.randomUUID().toString(),
                normal,
                "",
                hash(secret),
                role,
                team,
                platformAdmin,
                clock.instant(),
                actor);
        try {
            keys.saveAndFlush(entity);
        } catch (DataIntegrityViolationException raced) {
            // Another request created the name between the check and the insert: the index decides.
            throw nameTaken(normal);
        }
        audit.record(
                actor,
                "api_key.create",
                entity.id(),
                "name=" + entity.name() + " role=" + role + " team=" + team + (platformAdmin ? " platform-admin" : ""));
        return new CreatedKey(view(entity), secret);
    }

    private static ApiProblem nameTaken(String normal) {
        return ApiProblem.badField(
                "name", "a key named '" + normal + "' already exists (names are never reused, even after revocation)");
    }

    /** Names the platform uses for itself in the audit log and elsewhere; no key may be called so. */
    static final Set<String> RESERVED_NAMES =
            Set.of("system", "anonymous", BOOTSTRAP_NAME, "bootstrap-admin", "cadre", "root", "admin", "unknown");

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    /** The name as stored: NFKC, lower case, trimmed; 400 naming {@code name} when it is not allowed. */
    static String normalisedName(String name) {
        if (name == null || name.isBlank() || name.length() > 100) {
            throw ApiProblem.badField("name", "must be 1 to 64 characters");
        }
        if (CONTROL.matcher(name).find()) {
            throw ApiProblem.badField(
                    "name", "must not contain control characters (line breaks, tabs, escape sequences)");
        }
        String normal = Normalizer.normalize(name.trim(), Normalizer.Form.NFKC).toLowerCase(Locale.ROOT);
        if (!NAME.matcher(normal).matches()) {
            throw ApiProblem.badField(
                    "name",
                    "use 1 to 64 of a-z, 0-9, '.', '_' and '-' (upper case is lower-cased), starting with a letter or"
                            + " digit; other letters are refused so that no two key names look alike");
        }
        return normal;
    }

    /** The keys {@code scope} sees, oldest first: a team's own, or all for a platform admin. */
    @Transactional(readOnly = true)
    public List<ApiKeyView> list(TeamScope scope) {
        return keys.findAllByOrderByCreatedAtAsc().stream()
                .filter(k -> scope.includes(k.team()))
                .map(ApiKeyService::view)
                .toList();
    }

    /**
     * Gives key {@code id} (one {@code scope} sees) a new secret, shown once: the same key (id, name,
     * team, role), and its old secret stops working at once here, within the key cache TTL elsewhere.
     * Empty when there is no such key in that scope; 409 for a revoked key, which stays revoked.
     */
    @Transactional
    public Optional<CreatedKey> rotate(TeamScope scope, String id, String actor) {
        Optional<ApiKeyEntity> key = keys.findById(id).filter(k -> scope.includes(k.team()));
        if (key.isEmpty()) {
            return Optional.empty();
        }
        ApiKeyEntity k = key.get();
        if (k.revokedAt() != null) {
            throw ApiProblem.conflict("API key '" + id + "' is revoked; create a new key instead of rotating it");
        }
        String secret = newSecret();
        k.rotate(hash(secret));
        audit.record(actor, "api_key.rotate", k.id(), "name=" + k.name() + " team=" + k.team());
        forget(id);
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    forget(id);
                }
            });
        }
        return Optional.of(new CreatedKey(view(k), secret));
    }

    /** Revokes a key {@code scope} sees; answers false when there is no such key (in that scope). */
    @Transactional
    public boolean revoke(TeamScope scope, String id, String actor) {
        Optional<ApiKeyEntity> key = keys.findById(id).filter(k -> scope.includes(k.team()));
        key.ifPresent(k -> {
            if (k.revokedAt() == null) {
                k.revoke(clock.instant());
                audit.record(actor, "api_key.revoke", k.id(), "name=" + k.name());
            }
        });
        // Now, and again once committed: a request that read the key before the commit may have
        // cached it in between.
        forget(id);
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    forget(id);
                }
            });
        }
        return key.isPresent();
    }

    private void forget(String keyId) {
        cache.values().removeIf(c -> c.principal().keyId().equals(keyId));
        byId.remove(keyId);
    }

    /**
     * Makes sure an admin can get in: registers the configured bootstrap key, or — on a first
     * start without one — creates an admin key and prints it once. There is one key named {@code
     * bootstrap}: a changed secret replaces the old one on the same key (same id; the old secret
     * stops working at once here, within the key cache TTL elsewhere), and keys an older version
     * registered for earlier secrets are revoked.
     *
     * @throws IllegalStateException naming the setting when the secret is short or a placeholder
     */
    // Not one transaction: several instances may start at once, and the loser of the insert race
    // must simply find the key the winner stored.
    public void bootstrap(String configuredSecret) {
        if (configuredSecret != null && !configuredSecret.isBlank()) {
            String secret = configuredSecret.trim();
            checkBootstrapSecret(secret);
            String h = hash(secret);
            Optional<ApiKeyEntity> existing = keys.findByNameKey(BOOTSTRAP_NAME);
            String id;
            if (existing.isEmpty()) {
                id = UUID.randomUUID().toString();
                try {
                    keys.saveAndFlush(new ApiKeyEntity(
                            id,
                            BOOTSTRAP_NAME,
                            "",
                            h,
                            Role.ADMIN,
                            TeamId.DEFAULT,
                            true,
                            clock.instant(),
                            BOOTSTRAP_SETTING_ENV));
                    audit.record("system", "api_key.bootstrap", id, "from " + BOOTSTRAP_SETTING_ENV);
                } catch (DataIntegrityViolationException another) {
                    log.info("Bootstrap admin key registered by another instance");
                    id = keys.findByNameKey(BOOTSTRAP_NAME)
                            .map(ApiKeyEntity::id)
                            .orElse(id);
                }
            } else {
                id = existing.get().id();
                if (!existing.get().keyHash().equals(h)) {
                    String keyId = id;
                    transactions.executeWithoutResult(tx -> keys.findById(keyId).ifPresent(k -> k.rotate(h)));
                    forget(id);
                    audit.record(
                            "system",
                            "api_key.bootstrap_rotate",
                            id,
                            BOOTSTRAP_SETTING_ENV + " changed: the earlier bootstrap secret no longer works");
                    log.warn(
                            "{} changed: the bootstrap key {} now takes the new secret only",
                            BOOTSTRAP_SETTING_ENV,
                            id);
                } else if (existing.get().revokedAt() != null) {
                    log.warn(
                            "The bootstrap key {} was revoked; {} still names its secret, which stays revoked (set a"
                                    + " new secret to use the bootstrap key again)",
                            id,
                            BOOTSTRAP_SETTING_ENV);
                }
            }
            // Keys registered by versions that made a new key per secret: only the current one is valid.
            for (ApiKeyEntity old : keys.findByCreatedByAndRevokedAtIsNull(BOOTSTRAP_SETTING_ENV)) {
                if (!old.id().equals(id)) {
                    revoke(TeamScope.allTeams("the bootstrap key's predecessors"), old.id(), "system");
                }
            }
            return;
        }
        if (keys.count() == 0) {
            CreatedKey created = insert("bootstrap-admin", Role.ADMIN, TeamId.DEFAULT, true, "system");
            // Never to stdout or the log (a pod's log is read by many): to a file only this user reads.
            try {
                AdminKeyFile.write(adminKeyFile, created.secret());
            } catch (java.io.IOException | RuntimeException e) {
                // No file, no way in: take the key back so the next start tries again.
                keys.deleteById(created.key().id());
                throw new IllegalStateException(
                        "could not write the generated admin key to " + adminKeyFile.toAbsolutePath()
                                + " (cadre.security.admin-key-file): " + e.getMessage()
                                + "; make the directory writable or set " + BOOTSTRAP_SETTING,
                        e);
            }
            log.warn(
                    "Created bootstrap admin API key {}; its secret is in {} (readable only by this user). Use it as"
                            + " 'Authorization: Bearer <key>' or to log in to the console, then create narrower"
                            + " keys and delete the file.",
                    created.key().id(),
                    adminKeyFile.toAbsolutePath().normalize());
        }
    }

    private static final String BOOTSTRAP_SETTING_ENV = "CADRE_BOOTSTRAP_API_KEY";
    private static final String BOOTSTRAP_SETTING = "cadre.security.bootstrap-api-key (" + BOOTSTRAP_SETTING_ENV + ")";
    static final int MIN_BOOTSTRAP_LENGTH = 32;
    private static final List<String> PLACEHOLDERS = List.of(
            "change-me",
            "changeme",
            "change_me",
            "replace-me",
            "replaceme",
            "placeholder",
            "example",
            "secret",
            "password",
            "your-",
            "<",
            "${");

    /**
     * Refuses a bootstrap secret an attacker could guess: shorter than 32 characters, a placeholder
     * from a manifest or a guide, or with hardly any distinct characters. The message names the
     * setting and never any part of the secret.
     */
    static void checkBootstrapSecret(String secret) {
        String fix = "; generate one with 'openssl rand -hex 32' (docs/security.md, bootstrap key)";
        if (secret.length() < MIN_BOOTSTRAP_LENGTH) {
            throw new IllegalStateException(BOOTSTRAP_SETTING + " is too short: " + secret.length()
                    + " characters, at least " + MIN_BOOTSTRAP_LENGTH + " are required" + fix);
        }
        String lower = secret.toLowerCase(Locale.ROOT);
        for (String p : PLACEHOLDERS) {
            if (lower.contains(p)) {
                throw new IllegalStateException(
                        BOOTSTRAP_SETTING + " is a placeholder (it contains '" + p + "'), not a secret" + fix);
            }
        }
        if (secret.chars().distinct().count() < 10) {
            throw new IllegalStateException(
                    BOOTSTRAP_SETTING + " has fewer than 10 distinct characters: too easy to guess" + fix);
        }
    }

    private String newSecret() {
        StringBuilder sb = new StringBuilder(SECRET_PREFIX);
        for (int i = 0; i < 32; i++) {
            sb.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return sb.toString();
    }

    static String hash(String secret) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    private static ApiKeyView view(ApiKeyEntity k) {
        return new ApiKeyView(
                k.id(),
                k.name(),
                k.role(),
                k.team().name(),
                k.platformAdmin(),
                k.createdAt(),
                k.createdBy(),
                k.lastUsedAt(),
                k.revokedAt());
    }
}
