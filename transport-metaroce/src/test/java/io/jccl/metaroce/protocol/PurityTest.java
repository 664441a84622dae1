package io.jccl.metaroce.protocol;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.core.domain.properties.HasParameterTypes.Predicates.rawParameterTypes;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameStartingWith;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.RandomAccessFile;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.InstantSource;
import java.util.Date;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.Timer;
import java.util.TimerTask;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protocol core is pure: the classes of {@code io.jccl.metaroce.protocol..} (production code, the wire layer
 * included) do no I/O, start or touch no threads, read no clock and make no randomness of their own. Time and
 * randomness come in from the caller ({@code nowNs} arguments, a {@link RandomGenerator}); the driver owns sockets
 * and threads. That is what makes the core deterministic under the simulator.
 *
 * <p>Allowed on purpose: {@code java.util.concurrent.atomic} (no effect on determinism; a driver may publish a value
 * to a monitoring thread through one) and {@link TimeUnit} (pure arithmetic); {@code javax.crypto},
 * {@link java.security.MessageDigest}, {@link java.nio.ByteBuffer}, {@link java.lang.foreign.MemorySegment},
 * {@link java.lang.invoke.MethodHandle}; holding a {@link Random} that was passed in (constructing one is not
 * allowed). Everything else in {@code java.util.concurrent} (executors, locks, futures, concurrent collections) is
 * forbidden: the core runs on one thread at a time.
 *
 * <p>{@link #eachRuleCatchesItsViolation} proves the rules bite, on deliberately impure classes that live in tests
 * only ({@code io.jccl.metaroce.puritycheck}), and that the allowed uses above pass.
 */
class PurityTest {
    /** The production classes of the protocol core. */
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(fromTheSameLocationAs(Engine.class))
            .importPackages("io.jccl.metaroce.protocol");

    /** The production classes of the simulator (packets, fabrics, datacenter topologies, their reports). */
    private static final JavaClasses SIMULATOR = new ClassFileImporter()
            .withImportOption(fromTheSameLocationAs(Engine.class))
            .importPackages("io.jccl.metaroce.sim");

    /** The test-only fixtures: one impure class per rule, and one that uses everything allowed. */
    private static final JavaClasses FIXTURES = new ClassFileImporter()
            .importPackages("io.jccl.metaroce.puritycheck");

    /**
     * Imports only classes from where {@code anchor} was loaded: the module's main classes, a directory or a jar.
     * (ArchUnit's {@code DO_NOT_INCLUDE_TESTS} recognizes test classes by the path {@code target/test-classes}, which
     * a build with {@code -Djccl.targetDir=...} does not have.)
     */
    private static ImportOption fromTheSameLocationAs(Class<?> anchor) {
        final String root;
        try {
            root = anchor.getProtectionDomain().getCodeSource().getLocation().toURI().getPath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return location -> location.contains(root);
    }

    /** A purity rule, with the fixture class that breaks it. */
    record PurityRule(String name, ArchRule rule, String violatingFixture) {
        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * @param packageIdentifier the classes the rules apply to, as an ArchUnit package identifier ({@code a.b..})
     * @return the purity rules
     */
    static List<PurityRule> rules(String packageIdentifier) {
        return rules(packageIdentifier, false);
    }

    /**
     * @param packageIdentifier the classes the rules apply to, as an ArchUnit package identifier ({@code a.b..})
     * @param seedsAllowed      whether a random generator may be made from a seed ({@code new SplittableRandom(seed)}):
     *                          the simulator is where a run's seed becomes its random streams; the protocol core
     *                          only takes one in
     * @return the purity rules
     */
    static List<PurityRule> rules(String packageIdentifier, boolean seedsAllowed) {
        final String fixtures = "io.jccl.metaroce.puritycheck.";
        return List.of(
                new PurityRule("no I/O", noClasses().that().resideInAPackage(packageIdentifier).should()
                        .dependOnClassesThat(resideInAnyPackage("java.net..", "java.nio.channels..", "java.nio.file..")
                                .or(belongToAnyOf(File.class, FileInputStream.class, FileOutputStream.class,
                                        FileReader.class, FileWriter.class, RandomAccessFile.class,
                                        ProcessBuilder.class, Process.class)))
                        .because("the core is sans-IO: the driver owns sockets and files"),
                        fixtures + "ImpureIo"),
                new PurityRule("no console", noClasses().that().resideInAPackage(packageIdentifier).should()
                        .accessField(System.class, "out").orShould().accessField(System.class, "err")
                        .orShould().accessField(System.class, "in")
                        .because("printing is I/O; the core reports through counters and completions"),
                        fixtures + "ImpureConsole"),
                new PurityRule("no threads", noClasses().that().resideInAPackage(packageIdentifier).should()
                        .dependOnClassesThat(belongToAnyOf(Thread.class, ThreadGroup.class, ThreadLocal.class,
                                Timer.class, TimerTask.class, Runtime.class)
                                .or(resideInAPackage("java.util.concurrent..")
                                        .and(not(resideInAPackage("java.util.concurrent.atomic..")))
                                        .and(not(belongToAnyOf(TimeUnit.class)))))
                        .because("the core runs on the driver's thread, one call at a time"),
                        fixtures + "ImpureThreads"),
                new PurityRule("no clock", noClasses().that().resideInAPackage(packageIdentifier).should()
                        .callMethod(System.class, "nanoTime").orShould().callMethod(System.class, "currentTimeMillis")
                        .orShould().dependOnClassesThat(belongToAnyOf(Clock.class, InstantSource.class))
                        .orShould().callMethodWhere(target(name("now"))
                                .and(target(owner(resideInAPackage("java.time..")))))
                        .orShould().callConstructor(Date.class)
                        .because("time comes in as nowNs, so the simulator controls it"),
                        fixtures + "ImpureClock"),
                new PurityRule("no ambient randomness", noClasses().that().resideInAPackage(packageIdentifier).should()
                        .callConstructorWhere(target(owner(assignableTo(Random.class)
                                .or(assignableTo(SplittableRandom.class))))
                                .and(seedsAllowed ? target(rawParameterTypes(new Class<?>[0]))
                                        : DescribedPredicate.alwaysTrue()))
                        .orShould().callMethodWhere(target(owner(assignableTo(SecureRandom.class)))
                                .and(target(nameStartingWith("getInstance"))))
                        .orShould().dependOnClassesThat(belongToAnyOf(ThreadLocalRandom.class,
                                RandomGeneratorFactory.class))
                        .orShould().callMethod(Math.class, "random").orShould().callMethod(StrictMath.class, "random")
                        .orShould().callMethod(UUID.class, "randomUUID")
                        .orShould().callMethod(RandomGenerator.class, "getDefault")
                        .orShould().callMethod(RandomGenerator.class, "of", String.class)
                        .because("randomness is injected as a RandomGenerator, so runs are reproducible"),
                        fixtures + "ImpureRandom"));
    }

    static List<PurityRule> coreRules() {
        return rules("io.jccl.metaroce.protocol..");
    }

    /**
     * The core's rules on the core, and the simulator's on the simulator: it runs on virtual time and seeded
     * randomness too, so a seed replays a run exactly.
     */
    static Stream<Arguments> rulesAndTheirClasses() {
        return Stream.concat(coreRules().stream().map(rule -> Arguments.of(rule, Named.of("core", CORE))),
                rules("io.jccl.metaroce.sim..", true).stream()
                        .map(rule -> Arguments.of(rule, Named.of("simulator", SIMULATOR))));
    }

    @Test
    void theCoreAndTheSimulatorAreImported() {
        // Guards against a silently empty import (e.g. a class file version the importer cannot read).
        assertThat(CORE.contain("io.jccl.metaroce.protocol.Engine")).isTrue();
        assertThat(CORE.contain("io.jccl.metaroce.protocol.wire.PacketValidator")).isTrue();
        assertThat(CORE.contain("io.jccl.metaroce.protocol.PurityTest")).isFalse();
        assertThat(SIMULATOR.contain("io.jccl.metaroce.sim.Simulator")).isTrue();
        assertThat(SIMULATOR.contain("io.jccl.metaroce.sim.dc.ClosRun")).isTrue();
    }

    @ParameterizedTest
    @MethodSource("rulesAndTheirClasses")
    void theCoreAndTheSimulatorArePure(PurityRule rule, JavaClasses classes) {
        rule.rule().check(classes);
    }

    @ParameterizedTest
    @MethodSource("coreRules")
    void eachRuleCatchesItsViolation(PurityRule coreRule) {
        final PurityRule rule = rules("io.jccl.metaroce.puritycheck..").stream()
                .filter(r -> r.name().equals(coreRule.name())).findFirst().orElseThrow();
        final EvaluationResult result = rule.rule().evaluate(FIXTURES);
        assertThat(result.hasViolation()).as("%s flags a violation", rule.name()).isTrue();
        final List<String> details = result.getFailureReport().getDetails();
        assertThat(details).as("%s flags %s", rule.name(), rule.violatingFixture())
                .anyMatch(d -> d.contains(rule.violatingFixture()));
        assertThat(details).as("%s leaves the allowed uses alone", rule.name())
                .noneMatch(d -> d.contains("io.jccl.metaroce.puritycheck.AllowedUses"));
    }

    @Test
    void theSimulatorsRulesCatchEveryImpureFixtureToo() {
        for (PurityRule rule : rules("io.jccl.metaroce.puritycheck..", true)) {
            assertThat(rule.rule().evaluate(FIXTURES).getFailureReport().getDetails()).as(rule.name())
                    .anyMatch(d -> d.contains(rule.violatingFixture()))
                    .noneMatch(d -> d.contains("io.jccl.metaroce.puritycheck.AllowedUses"));
        }
    }

    @Test
    void everyImpureFixtureIsCaught() {
        final List<PurityRule> rules = rules("io.jccl.metaroce.puritycheck..");
        for (String fixture : List.of("ImpureIo", "ImpureConsole", "ImpureThreads", "ImpureClock", "ImpureRandom")) {
            assertThat(FIXTURES.contain("io.jccl.metaroce.puritycheck." + fixture)).isTrue();
        }
        // Each forbidden use in the fixtures is flagged (one violation line per use, at least).
        assertThat(rules.stream().mapToInt(r -> r.rule().evaluate(FIXTURES).getFailureReport().getDetails().size())
                .sum()).isGreaterThanOrEqualTo(20);
    }
}
