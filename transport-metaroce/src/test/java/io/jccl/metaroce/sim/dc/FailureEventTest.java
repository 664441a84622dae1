package io.jccl.metaroce.sim.dc;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Failure specifications: their forms, and the ports each takes down on a small fat tree (k = 4, 16 hosts). */
class FailureEventTest {
    private static final ClosTopology K4 = new ClosTopology(ClosConfig.fatTree(3, 4, 400).withPlanes(2));

    @Test
    void parsesEachFormAndItsTime() {
        assertThat(FailureEvent.parse("plane:1@200us")).isEqualTo(new FailureEvent("plane:1", 200_000_000, true));
        assertThat(FailureEvent.parse("Switch:Core0+@1ms")).isEqualTo(new FailureEvent("switch:core0", 1_000_000_000L,
                false));
        assertThat(FailureEvent.parse("link:tor3-up1.p1@50ns").element()).isEqualTo("link:tor3-up1.p1");
        assertThat(FailureEvent.parse("link:host5@0s").atPs()).isZero();
        assertThat(FailureEvent.parse("plane:1@200us").plane()).isEqualTo(1);
        assertThat(FailureEvent.parse("switch:agg1@1us").plane()).isEqualTo(-1);
    }

    @Test
    void aHostLinkIsItsNicPortAndTheTorsPortBack() {
        int[] ports = FailureEvent.parse("link:host5.p1@1us").ports(K4);
        assertThat(ports).hasSize(2);
        assertThat(ports[0]).isEqualTo(K4.nicPort(5, 1));
        assertThat(K4.portOwner(ports[1])).isEqualTo(K4.portTarget(ports[0]));
        assertThat(K4.portTarget(ports[1])).isEqualTo(5);
        assertThat(K4.portPlane(ports[1])).isEqualTo(1);
    }

    @Test
    void aSwitchIsItsPortsAndItsNeighboursPortsTowardsIt() {
        int[] ports = FailureEvent.parse("switch:core0@1us").ports(K4);
        // A core switch of a k = 4 fat tree has 4 ports, one to each pod's aggregation switch.
        assertThat(ports).hasSize(8);
        int core = K4.portOwner(ports[0]);
        long own = Arrays.stream(ports).filter(p -> K4.portOwner(p) == core).count();
        long towards = Arrays.stream(ports).filter(p -> K4.portTarget(p) == core).count();
        assertThat(own).isEqualTo(4);
        assertThat(towards).isEqualTo(4);
        // A ToR: 2 hosts and 2 uplinks, both ways.
        assertThat(FailureEvent.parse("switch:tor7.p1@1us").ports(K4)).hasSize(8);
    }

    @Test
    void anUplinkIsBothDirections() {
        int[] ports = FailureEvent.parse("link:agg2-up1@1us").ports(K4);
        assertThat(ports).hasSize(2);
        assertThat(K4.portOwner(ports[0])).isEqualTo(K4.portTarget(ports[1]));
        assertThat(K4.portTarget(ports[0])).isEqualTo(K4.portOwner(ports[1]));
        assertThat(K4.portKind(ports[0])).isEqualTo(ClosTopology.FABRIC);
        int[] plane = FailureEvent.parse("plane:0@1us").ports(K4);
        assertThat(plane).hasSize(K4.portsPerPlane() + K4.hosts());
    }

    @Test
    void badFormsAndPartsTheFabricLacksAreRefusedByName() {
        assertThatThrownBy(() -> FailureEvent.parse("router:1@1us")).hasMessageContaining("'router:1' is not a fabric"
                + " element");
        assertThatThrownBy(() -> FailureEvent.parse("plane:1")).hasMessageContaining("written plane:K");
        assertThatThrownBy(() -> FailureEvent.parse("plane:1@5")).hasMessageContaining("needs a unit");
        assertThatThrownBy(() -> FailureEvent.parse("plane:2@1us").ports(K4)).hasMessageContaining("plane 2 is not in 0-1");
        assertThatThrownBy(() -> FailureEvent.parse("switch:core4@1us").ports(K4))
                .hasMessageContaining("core switches 0-3");
        assertThatThrownBy(() -> FailureEvent.parse("link:tor0-up2@1us").ports(K4))
                .hasMessageContaining("up links are 0-1");
        assertThatThrownBy(() -> FailureEvent.parse("link:host16@1us").ports(K4))
                .hasMessageContaining("host 16 is not in 0-15");
        assertThatThrownBy(() -> FailureEvent.parse("link:host99999999999@1us").ports(K4))
                .hasMessageContaining("too large");
        assertThatThrownBy(() -> new ClosTopology(ClosConfig.fatTree(2, 4, 400)).switchNode("agg", 0, 0, "switch:agg0"))
                .hasMessageContaining("no agg switches");
    }
}
