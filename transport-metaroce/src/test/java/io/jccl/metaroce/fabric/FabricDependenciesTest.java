package io.jccl.metaroce.fabric;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/** The impairing relay ships with the transport; the simulators are tools and tests, so it must not need them. */
class FabricDependenciesTest {
    private static final JavaClasses FABRIC = new ClassFileImporter()
            .withImportOption(FabricDependenciesTest::isMainCode)
            .importPackages("io.jccl.metaroce.fabric");

    /** Only the module's main classes (by where they were loaded from: a build may use another target directory). */
    private static boolean isMainCode(com.tngtech.archunit.core.importer.Location location) {
        try {
            return location.contains(ImpairmentRelay.class.getProtectionDomain().getCodeSource().getLocation().toURI()
                    .getPath());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theRelayDoesNotDependOnTheSimulators() {
        assertThat(FABRIC.contain(ImpairmentRelay.class)).isTrue();
        noClasses().that().resideInAPackage("io.jccl.metaroce.fabric..").should().dependOnClassesThat()
                .resideInAnyPackage("io.jccl.metaroce.sim..", "io.jccl.metaroce.simnet..")
                .because("the shipped relay shares only the impairment model (io.jccl.metaroce.impair)")
                .check(FABRIC);
    }
}
