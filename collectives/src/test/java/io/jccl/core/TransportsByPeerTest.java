package io.jccl.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The transport part of the INFO line {@code ... - Init COMPLETE: local to rank 1, shm to ranks 2-3}. */
@Tag("integration")
class TransportsByPeerTest {
    @Test
    void peersAreGroupedByTransportInRanges() {
        assertThat(CommInit.transportsByPeer(new String[] {null, "local"}, 0)).isEqualTo("local to rank 1");
        assertThat(CommInit.transportsByPeer(new String[] {"local", "local", "shm", "shm", null, "tcp", "shm"}, 4))
                .isEqualTo("local to ranks 0-1, shm to ranks 2-3,6, tcp to rank 5");
        assertThat(CommInit.transportsByPeer(new String[] {"a", null, "a", "a", "b", "a"}, 1))
                .isEqualTo("a to ranks 0,2-3,5, b to rank 4");
        assertThat(CommInit.transportsByPeer(new String[] {null}, 0)).isEqualTo("no peers");
    }
}
