package dev.cadre.platform;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import dev.cadre.platform.approvals.ApprovalStore;
import dev.cadre.platform.audit.AuditLog;
import dev.cadre.platform.observability.TraceStore;
import dev.cadre.platform.runs.RunStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Controller;

/**
 * The module boundaries of DESIGN.md section 1, checked on the compiled classes of all modules:
 * platform-api may use agent-core, memory and the dashboard; agent-core and memory know nothing of
 * each other, of platform-api, or of Spring. Inside platform-api: packages free of cycles, and every
 * table of its migrations has one owning store (issue #14).
 */
class ArchitectureTest {

    private static JavaClasses cadre;

    @BeforeAll
    static void importClasses() {
        cadre = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.cadre");
    }

    @Test
    void agentCoreKnowsNeitherMemoryNorPlatformNorSpring() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("dev.cadre.agent..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.cadre.memory..", "dev.cadre.platform..", "org.springframework..")
                .because("agent-core is a plain-Java library that platform-api wires (DESIGN.md section 1)");
        rule.check(cadre);
    }

    @Test
    void memoryKnowsNeitherAgentCoreNorPlatformNorSpring() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("dev.cadre.memory..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("dev.cadre.agent..", "dev.cadre.platform..", "org.springframework..")
                .because("memory is a plain-Java library that platform-api wires (DESIGN.md section 1)");
        rule.check(cadre);
    }

    @Test
    void librariesKeepTheirOwnPackages() {
        ArchRule rule = noClasses()
                .that()
                .resideOutsideOfPackages("dev.cadre.agent..", "dev.cadre.memory..", "dev.cadre.platform..")
                .should()
                .resideInAPackage("dev.cadre..")
                .because("every Cadre class belongs to one module's root package")
                .allowEmptyShould(true);
        rule.check(cadre);
    }

    @Test
    void platformPackagesAreFreeOfCycles() {
        ArchRule rule = slices().matching("dev.cadre.platform.(*)..")
                .should()
                .beFreeOfCycles()
                .because("a feature package is understood and changed on its own only if it does not depend on"
                        + " itself through others; invert the dependency (as cluster provides runs' RunQueue)");
        rule.check(cadre);
    }

    @Test
    void nothingOutsideAgentCoreUsesItsInternals() {
        ArchRule rule = noClasses()
                .that()
                .resideOutsideOfPackage("dev.cadre.agent..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.cadre.agent..internal..")
                .because("agent-core's internal packages may change in any release; its public API is the rest");
        rule.check(cadre);
    }

    @Test
    void nothingOutsideMemoryUsesItsInternals() {
        ArchRule rule = noClasses()
                .that()
                .resideOutsideOfPackage("dev.cadre.memory..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.cadre.memory..internal..")
                .because("memory's internal packages may change in any release; its public API is the rest");
        rule.check(cadre);
    }

    /**
     * Database access: JDBC, Spring JDBC, JPA and Spring Data types, but not their exceptions (telling
     * a storage outage from a bug is the web layer's job).
     */
    private static final DescribedPredicate<JavaClass> DATABASE_ACCESS = JavaClass.Predicates.resideInAnyPackage(
                    "java.sql..",
                    "javax.sql..",
                    "org.springframework.jdbc..",
                    "jakarta.persistence..",
                    "org.springframework.data..")
            .and(DescribedPredicate.not(JavaClass.Predicates.assignableTo(Throwable.class)))
            .as("are database access types (JDBC, Spring JDBC, JPA, Spring Data)");

    @Test
    void controllersNeverTouchTheDatabase() {
        ArchRule rule = noClasses()
                .that()
                .areMetaAnnotatedWith(Controller.class)
                .should()
                .dependOnClassesThat(DATABASE_ACCESS)
                .because("a controller asks the owning store's query methods; SQL lives with the table's owner");
        rule.check(cadre);
    }

    private static final String MIGRATIONS_ONLY = "(migrations only)";

    /** Each table of the platform's migrations and the one class whose SQL (or JPA mapping) names it. */
    private static final Map<String, String> TABLE_OWNERS = Map.ofEntries(
            Map.entry("cadre_run", RunStore.class.getName()),
            Map.entry("cadre_run_event", "dev.cadre.platform.runs.RunEvents"),
            Map.entry("cadre_run_ending", "dev.cadre.platform.runs.RunStore"),
            Map.entry("cadre_tool_journal", "dev.cadre.platform.runs.JdbcToolJournal"),
            Map.entry("cadre_approval", ApprovalStore.class.getName()),
            Map.entry("cadre_span", TraceStore.class.getName()),
            Map.entry("cadre_model_rollup", TraceStore.class.getName()),
            Map.entry("cadre_run_rollup", "dev.cadre.platform.runs.RunRollups"),
            Map.entry("cadre_run_duration_rollup", "dev.cadre.platform.runs.RunRollups"),
            Map.entry("cadre_delegation_rollup", "dev.cadre.platform.runs.RunRollups"),
            Map.entry("cadre_agent_outcome", "dev.cadre.platform.runs.RunRollups"),
            Map.entry("cadre_audit_log", AuditLog.class.getName()),
            Map.entry("cadre_api_key", "dev.cadre.platform.security.ApiKeyEntity"),
            Map.entry("cadre_eval", "dev.cadre.platform.evals.EvalStore"),
            Map.entry("cadre_replay", "dev.cadre.platform.replay.ReplayStore"),
            Map.entry("cadre_replay_run", "dev.cadre.platform.replay.ReplayStore"),
            Map.entry("cadre_tool_output", "dev.cadre.platform.tooloutput.JdbcToolOutputStore"),
            Map.entry("cadre_tool_output_chunk", "dev.cadre.platform.tooloutput.JdbcToolOutputStore"),
            Map.entry("cadre_incident_event", "dev.cadre.platform.incidents.JdbcIncidentTimeline"),
            Map.entry("cadre_incident_delivery", "dev.cadre.platform.incidents.JdbcIncidentTimeline"),
            Map.entry("cadre_incident_index", "dev.cadre.platform.incidents.JdbcIncidentIndex"),
            Map.entry("cadre_outbox", "dev.cadre.platform.outbox.OutboxStore"),
            Map.entry("cadre_team", "dev.cadre.platform.tenancy.TeamStore"),
            // Written by the baseline migration only.
            Map.entry("cadre_maintenance_lease", "dev.cadre.platform.retention.MaintenanceLease"),
            Map.entry("cadre_schema_info", MIGRATIONS_ONLY));

    /** Spring Data repositories of the owners' entities (they carry no SQL). */
    private static final Set<String> ENTITY_REPOSITORIES = Set.of("dev.cadre.platform.security.ApiKeyRepository");

    /** Asks the database itself whether it still answers (SELECT 1): it names no table. */
    private static final Set<String> DATABASE_PROBES = Set.of("dev.cadre.platform.storage.DatabaseHealth");

    @Test
    void onlyTableOwnersAccessTheDatabase() {
        ArchRule rule = noClasses()
                .that()
                .resideInAPackage("dev.cadre.platform..")
                .and(DescribedPredicate.not(tableOwners()))
                .and()
                .areNotMetaAnnotatedWith(Configuration.class)
                .should()
                .dependOnClassesThat(DATABASE_ACCESS)
                .because("each table has one owning store, and everyone else asks it (configurations only hand a"
                        + " JdbcClient or DataSource to what they build)");
        rule.check(cadre);
    }

    /**
     * The core loop stays readable (issue 27): a main file of agent-core past 450 lines means a job has
     * grown into it that wants a class of its own, as the earlier splits gave them.
     */
    @Test
    void agentCoreMainFilesStayUnder450Lines() throws IOException {
        Map<String, Long> tooLong = new TreeMap<>();
        try (Stream<Path> files = Files.walk(Path.of("../agent-core/src/main/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                long lines;
                try (Stream<String> l = Files.lines(f)) {
                    lines = l.count();
                }
                if (lines > 450) {
                    tooLong.put(f.getFileName().toString(), lines);
                }
            }
        }
        assertThat(tooLong).as("agent-core main files over 450 lines").isEmpty();
    }

    /** Null discipline (STYLE.md): every package of the platform and the libraries is {@code @NullMarked}. */
    @Test
    void everyPackageIsNullMarked() throws IOException {
        Set<String> unmarked = new TreeSet<>();
        for (String root : List.of("src/main/java", "../agent-core/src/main/java", "../memory/src/main/java")) {
            try (Stream<Path> dirs = Files.walk(Path.of(root))) {
                for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                    boolean hasClasses;
                    try (Stream<Path> f = Files.list(dir)) {
                        hasClasses = f.anyMatch(p -> p.toString().endsWith(".java"));
                    }
                    Path info = dir.resolve("package-info.java");
                    if (hasClasses
                            && !(Files.exists(info) && Files.readString(info).contains("@NullMarked"))) {
                        unmarked.add(Path.of(root).relativize(dir).toString().replace('/', '.'));
                    }
                }
            }
        }
        assertThat(unmarked)
                .as("packages without a @NullMarked package-info.java")
                .isEmpty();
    }

    @Test
    void everyTableIsNamedByItsOwnerOnly() throws IOException {
        Set<String> migrated = new TreeSet<>();
        Pattern create = Pattern.compile("(?i)CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?(\\w+)");
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".sql")).toList()) {
                Matcher m = create.matcher(Files.readString(f));
                while (m.find()) {
                    migrated.add(m.group(1).toLowerCase(Locale.ROOT));
                }
            }
        }
        assertThat(migrated)
                .as("tables of the migrations; give a new table an owner in TABLE_OWNERS")
                .isEqualTo(new TreeSet<>(TABLE_OWNERS.keySet()));

        // String constants (SQL text, @Table names) are stored verbatim in the class file.
        Map<String, Set<String>> namedBy = new TreeMap<>();
        for (JavaClass c : cadre) {
            if (!c.getPackageName().startsWith("dev.cadre.platform")) {
                continue;
            }
            String bytes = classFile(c);
            for (String table : TABLE_OWNERS.keySet()) {
                if (Pattern.compile("(?<![A-Za-z0-9_])" + table + "(?![A-Za-z0-9_])")
                        .matcher(bytes)
                        .find()) {
                    namedBy.computeIfAbsent(table, t -> new TreeSet<>()).add(topLevel(c.getName()));
                }
            }
        }
        Map<String, Set<String>> expected = new TreeMap<>();
        TABLE_OWNERS.forEach((table, owner) -> {
            if (!owner.equals(MIGRATIONS_ONLY)) {
                expected.put(table, Set.of(owner));
            }
        });
        assertThat(namedBy)
                .as("classes whose SQL names each table: only its owner may; others ask the owner's query methods")
                .isEqualTo(expected);
    }

    private static DescribedPredicate<JavaClass> tableOwners() {
        Set<String> owners = new TreeSet<>(ENTITY_REPOSITORIES);
        owners.addAll(DATABASE_PROBES);
        TABLE_OWNERS.values().stream().filter(o -> !o.equals(MIGRATIONS_ONLY)).forEach(owners::add);
        return DescribedPredicate.describe("table owners " + owners, c -> owners.contains(topLevel(c.getName())));
    }

    private static String topLevel(String className) {
        int dollar = className.indexOf('$');
        return dollar < 0 ? className : className.substring(0, dollar);
    }

    private static String classFile(JavaClass c) {
        try (InputStream in = c.getSource().orElseThrow().getUri().toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
