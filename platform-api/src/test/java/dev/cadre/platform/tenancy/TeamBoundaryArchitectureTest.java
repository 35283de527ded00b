package dev.cadre.platform.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The team boundary cannot be forgotten in a store: every public method of a store of team-owned
 * rows ({@link TeamOwned}) takes the {@link TeamScope} it works in, or says with {@link AcrossTeams}
 * why it is the platform's own work that spans teams. (A store's package-private methods are reached
 * only through its own package's service, whose public methods take the scope.)
 */
class TeamBoundaryArchitectureTest {

    /** The stores of team-owned tables; a new one is added here and annotated {@link TeamOwned}. */
    private static final List<String> TEAM_OWNED_STORES =
            List.of("dev.cadre.platform.approvals.ApprovalStore", "dev.cadre.platform.runs.RunStore");

    private static JavaClasses platform;

    @BeforeAll
    static void importClasses() {
        platform = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.cadre.platform");
    }

    @Test
    void everyStoreOfTeamOwnedRows_isMarkedSo() {
        Set<String> marked = new TreeSet<>();
        for (JavaClass c : platform) {
            if (c.isAnnotatedWith(TeamOwned.class)) {
                marked.add(c.getName());
            }
        }
        assertThat(marked).isEqualTo(new TreeSet<>(TEAM_OWNED_STORES));
    }

    @Test
    void everyPublicMethodOfATeamOwnedStore_takesATeamScope_orSaysWhyItSpansTeams() {
        Set<String> unscoped = new TreeSet<>();
        for (JavaClass c : platform) {
            if (!c.isAnnotatedWith(TeamOwned.class)) {
                continue;
            }
            for (JavaMethod m : c.getMethods()) {
                if (!m.getModifiers().contains(JavaModifier.PUBLIC)
                        || m.getModifiers().contains(JavaModifier.STATIC)
                        || m.getModifiers().contains(JavaModifier.SYNTHETIC)
                        || m.getModifiers().contains(JavaModifier.BRIDGE)) {
                    continue;
                }
                boolean scoped = m.getRawParameterTypes().stream().anyMatch(p -> p.isAssignableTo(TeamScope.class));
                if (!scoped && !m.isAnnotatedWith(AcrossTeams.class)) {
                    unscoped.add(m.getFullName());
                }
            }
        }
        assertThat(unscoped)
                .as("public methods of team-owned stores without a TeamScope parameter or @AcrossTeams")
                .isEmpty();
    }

    @Test
    void aReasonToSpanTeams_isGiven() {
        for (JavaClass c : platform) {
            for (JavaMethod m : c.getMethods()) {
                if (m.isAnnotatedWith(AcrossTeams.class)) {
                    assertThat(m.getAnnotationOfType(AcrossTeams.class).value())
                            .as(m.getFullName())
                            .isNotBlank();
                }
            }
        }
    }
}
