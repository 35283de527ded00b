package dev.cadre.platform;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries of DESIGN.md section 1, checked on the compiled classes of all modules:
 * platform-api may use agent-core, memory and the dashboard; agent-core and memory know nothing of
 * each other, of platform-api, or of Spring.
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
}
