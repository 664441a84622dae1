package io.jccl.metaroce.sim;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The standard scenarios on the go-back-N baseline and on MetaRoCE. */
class ScenarioSuiteTest {
    @TestFactory
    Stream<DynamicTest> goBackN() {
        return ScenarioSuite.standard(Protocols.goBackN(GoBackNConfig.defaults()), 1, 1).stream()
                .map(e -> DynamicTest.dynamicTest(e.name(), () -> {
                    ScenarioResult r = e.scenario().run();
                    assertThat(r.payloadBytes()).isPositive();
                }));
    }

    @TestFactory
    Stream<DynamicTest> metaRoCE() {
        return ScenarioSuite.standard(Protocols.metaRoCE(), 8, 1).stream()
                .map(e -> DynamicTest.dynamicTest(e.name(), () -> e.scenario().run()));
    }
}
