package io.jccl.metaroce.sim;

import io.jccl.metaroce.impair.Impairments;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.Counter;
import io.jccl.metaroce.protocol.Counters;
import io.jccl.metaroce.protocol.DropReason;
import io.jccl.metaroce.protocol.Verbs;
import io.jccl.metaroce.protocol.WorkKind;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The harness passes correct endpoints and catches each kind of broken one, naming the seed. */
class TransferScenarioTest {
    private static final VerbsFactory GBN = Protocols.goBackN(GoBackNConfig.defaults());

    /** Go-back-N endpoints, the one of node id 2 wrapped by {@code breaker}. */
    /**
     * Forwards to an endpoint's verbs and lets a test scribble on the remotely writable region: as it is registered
     * (before the endpoint sees it) and after each datagram the endpoint took in.
     */
    private abstract static class ScribblingVerbs extends ForwardingVerbs {
        /** The remotely writable region, once registered. */
        MemorySegment region;
        private int datagrams;

        ScribblingVerbs(Verbs inner) {
            super(inner);
        }

        @Override
        public int registerRegion(MemorySegment memory, boolean remoteWritable) {
            if (remoteWritable) {
                region = memory;
                onWritableRegion(memory);
            }
            return super.registerRegion(memory, remoteWritable);
        }

        @Override
        public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                     int length, boolean ecnMarked) {
            DropReason dropped = super.onDatagram(nowNs, source, pathIndex, buffer, offset, length, ecnMarked);
            afterDatagram(nowNs, ++datagrams);
            return dropped;
        }

        /** Called as the remotely writable region is registered. */
        void onWritableRegion(MemorySegment memory) {
        }

        /** Called after each datagram, with how many there have been. */
        void afterDatagram(long nowNs, int datagrams) {
        }
    }

    private static VerbsFactory brokenAtNode2(Function<Verbs, Verbs> breaker) {
        return (config, nodeId, random) -> {
            Verbs v = GBN.create(config, nodeId, random);
            return nodeId == 2 ? breaker.apply(v) : v;
        };
    }

    /**
     * @return how one WRITE of {@code bytes} from node 1 to node 2 fails where {@code broken} breaks node 2, checked
     *         to name its seed
     */
    private static ScenarioFailure failedWrite(long seed, VerbsFactory broken, long bytes) {
        ScenarioFailure f = failure(TransferScenario.builder(seed).protocol(broken).write(0, 1, bytes).build());
        assertThat(f.getMessage()).contains("seed=" + seed);
        return f;
    }

    private static ScenarioFailure failure(TransferScenario s) {
        return assertThrows(ScenarioFailure.class, s::run, "the scenario passed but should have failed");
    }

    @Test
    void randomScenariosPassOnACorrectEndpoint() {
        for (long seed = 100; seed < 112; seed++) {
            ScenarioResult r = TransferScenario.builder(seed).protocol(GBN).nodes(2 + (int) (seed % 4))
                    .impairments(Impairments.NONE.withLossRate(0.005 * (seed % 3)).withCorruptRate(0.003)
                            .withDuplicateRate(0.005))
                    .randomWork(30, 30_000, 3).build().run();
            assertThat(r.payloadBytes()).isPositive();
            assertThat(r.simulatedNs()).isPositive();
            assertThat(r.goodputBytesPerSecond()).isEqualTo(r.payloadBytes() * 1e9 / r.simulatedNs());
            assertThat(r.completionNs()).hasSize(30);
            assertThat(java.util.Arrays.stream(r.completionNs()).allMatch(t -> t > 0 && t <= r.simulatedNs())).isTrue();
        }
    }

    @Test
    void aSeedReplaysExactly() {
        TransferScenario s = TransferScenario.builder(77).protocol(GBN).nodes(3)
                .impairments(Impairments.NONE.withLossRate(0.01).withJitterNs(100)).randomWork(20, 20_000, 2)
                .build();
        ScenarioResult a = s.run();
        ScenarioResult b = s.run();
        assertThat(b.traceHash()).isEqualTo(a.traceHash());
        assertThat(b.simulatedNs()).isEqualTo(a.simulatedNs());
        assertThat(b.events()).isEqualTo(a.events());
        assertThat(b.completionNs()).containsExactly(a.completionNs());
    }

    @Test
    void aWrongByteIsCaught() {
        // After its 5th datagram the receiver flips the first byte of the WRITE's target.
        VerbsFactory broken = brokenAtNode2(v -> new ScribblingVerbs(v) {
            @Override
            void afterDatagram(long nowNs, int datagrams) {
                if (datagrams == 5) {
                    region.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 16,
                            (byte) ~region.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 16));
                }
            }
        });
        ScenarioFailure f = failedWrite(11, broken, 20_000);
        assertThat(f.seed()).isEqualTo(11);
        assertThat(f.getMessage()).contains("WRITE #0 (node 1 -> node 2, 20000 bytes")
                .contains("byte 0 of 20000 differs in node 2's region at offset 16");
    }

    @Test
    void completionsOutOfOrderAreCaught() {
        // The receiver hands out the first two RECV completions of stream 5 swapped.
        VerbsFactory broken = brokenAtNode2(v -> new ForwardingVerbs(v) {
            final List<Object[]> held = new ArrayList<>();

            @Override
            public int pollCompletions(CompletionHandler handler) {
                return super.pollCompletions((c, w, k, s, n) -> {
                    if (k == WorkKind.RECV && held.size() < 2) {
                        held.add(new Object[] {c, w, k, s, n});
                        if (held.size() == 2) {
                            for (int i = 1; i >= 0; i--) {
                                Object[] h = held.get(i);
                                handler.onCompletion((int) h[0], (long) h[1], (WorkKind) h[2],
                                        (CompletionStatus) h[3], (long) h[4]);
                            }
                        }
                        return;
                    }
                    handler.onCompletion(c, w, k, s, n);
                });
            }
        });
        ScenarioFailure f = failure(TransferScenario.builder(12).protocol(broken).send(0, 1, 5, 1000)
                .send(0, 1, 5, 2000).send(0, 1, 5, 3000).build());
        assertThat(f.getMessage()).contains("seed=12").contains("its RECV completed out of order")
                .contains("stream 5");
    }

    /** @return how a 5,000-byte WRITE fails where node 2 does {@code scribble} to its region as it registers it */
    private static ScenarioFailure failedWriteScribbling(long seed, Consumer<MemorySegment> scribble) {
        VerbsFactory broken = brokenAtNode2(v -> new ScribblingVerbs(v) {
            @Override
            void onWritableRegion(MemorySegment memory) {
                scribble.accept(memory);
            }
        });
        return failedWrite(seed, broken, 5000);
    }

    @Test
    void aWriteOutsideTheRegionIsCaught() {
        // The receiver writes one byte just past its region (into the guard zone of the backing array).
        ScenarioFailure f = failedWriteScribbling(13, memory -> {
            byte[] backing = (byte[]) memory.heapBase().orElseThrow();
            int end = (int) (memory.address() + memory.byteSize());
            backing[end] ^= 0x5A;
        });
        assertThat(f.getMessage()).contains("a write landed outside its target")
                .contains("guard zone after node 2's region");
    }

    @Test
    void aStrayWriteInsideTheRegionButOutsideEveryTargetIsCaught() {
        ScenarioFailure f = failedWriteScribbling(14,   // in the leading gap
                memory -> memory.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) 0x11));
        assertThat(f.getMessage()).contains("at offset 3 of node 2's region, outside every target");
    }

    @Test
    void workThatNeverCompletesIsCaught() {
        VerbsFactory swallowFirstWrite = (config, nodeId, random) -> {
            Verbs v = GBN.create(config, nodeId, random);
            return nodeId != 1 ? v : new ForwardingVerbs(v) {
                boolean swallowed;

                @Override
                public int pollCompletions(CompletionHandler handler) {
                    return super.pollCompletions((c, w, k, s, n) -> {
                        if (k == WorkKind.WRITE && !swallowed) {
                            swallowed = true;
                            return;
                        }
                        handler.onCompletion(c, w, k, s, n);
                    });
                }
            };
        };
        ScenarioFailure f = failure(TransferScenario.builder(15).protocol(swallowFirstWrite).write(0, 1, 3000)
                .write(0, 1, 4000).build());
        assertThat(f.getMessage()).contains("seed=15").contains("stuck").contains("1 of 2 work items outstanding")
                .contains("WRITE #0").contains("sender not completed");
    }

    @Test
    void aBadStatusAWrongCountAndACompletionTwiceAreCaught() {
        VerbsFactory broken = brokenAtNode2(v -> new ForwardingVerbs(v) {
            @Override
            public int pollCompletions(CompletionHandler handler) {
                return super.pollCompletions((c, w, k, s, n) -> {
                    handler.onCompletion(c, w, k, CompletionStatus.TRUNCATED, n - 1);
                    handler.onCompletion(c, w, k, s, n);
                });
            }
        });
        ScenarioFailure f = failure(TransferScenario.builder(16).protocol(broken).send(0, 1, 0, 100).build());
        assertThat(f.getMessage()).contains("seed=16").contains("completed with status TRUNCATED")
                .contains("completed with 99 bytes, not 100").contains("never posted or already completed");
    }

    @Test
    void bytesPlacedTwiceAreCaughtByTheCounters() {
        VerbsFactory broken = brokenAtNode2(v -> new ForwardingVerbs(v) {
            final Counters doubled = new Counters();

            @Override
            public Counters counters() {
                doubled.add(Counter.PAYLOAD_BYTES_PLACED,
                        2 * super.counters().get(Counter.PAYLOAD_BYTES_PLACED)
                                - doubled.get(Counter.PAYLOAD_BYTES_PLACED));
                return doubled;
            }
        });
        ScenarioFailure f = failedWrite(17, broken, 5000);
        assertThat(f.getMessage()).contains("placed more than once");
    }

    @Test
    void aLateWriteAfterCompletionIsCaught() {
        // The receiver scribbles on the target when its timer runs after everything completed (during the drain).
        VerbsFactory broken = brokenAtNode2(v -> new ScribblingVerbs(v) {
            long scribbleAt = Long.MAX_VALUE;

            @Override
            void afterDatagram(long nowNs, int datagrams) {
                if (datagrams == 3) {
                    scribbleAt = nowNs + 500_000;
                }
            }

            @Override
            public long nextTimeoutNs() {
                return Math.min(super.nextTimeoutNs(), scribbleAt);
            }

            @Override
            public void onTimeout(long nowNs) {
                if (nowNs >= scribbleAt) {
                    scribbleAt = Long.MAX_VALUE;
                    region.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 20, (byte) 0x33);
                }
                super.onTimeout(nowNs);
            }
        });
        ScenarioFailure f = failedWrite(18, broken, 5000);
        assertThat(f.getMessage()).contains("after the network drained")
                .contains("a late or stray write");
    }

    @Test
    void anExceptionFromAnEndpointFailsWithItAsTheCause() {
        VerbsFactory broken = brokenAtNode2(v -> new ForwardingVerbs(v) {
            @Override
            public DropReason onDatagram(long nowNs, long source, int pathIndex, DirectBuffer buffer, int offset,
                                         int length, boolean ecnMarked) {
                throw new IllegalStateException("boom");
            }
        });
        ScenarioFailure f = failedWrite(19, broken, 100);
        assertThat(f.getMessage()).contains("boom");
        assertThat(f.getCause()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void timeLimitIsReported() {
        ScenarioFailure f = failure(TransferScenario.builder(20).protocol(GBN)
                .setup(sim -> sim.fabric().allPathsDown(1, 2, 0, Long.MAX_VALUE)).timeLimitNs(5_000_000)
                .write(0, 1, 100).build());
        assertThat(f.getMessage()).contains("seed=20").contains("virtual-time limit of 5000000 ns passed")
                .contains("WRITE #0");
    }

    @Test
    void builderRejectsNonsense() {
        TransferScenario.Builder b = TransferScenario.builder(1).protocol(GBN);
        assertThatThrownBy(() -> b.write(0, 0, 10)).hasMessageContaining("itself");
        assertThatThrownBy(() -> b.write(0, 2, 10)).hasMessageContaining("node index 2");
        assertThatThrownBy(() -> b.write(0, 1, -1)).hasMessageContaining("bytes=-1");
        assertThatThrownBy(() -> b.nodes(1)).hasMessageContaining("nodes=1");
        assertThatThrownBy(b::build).hasMessageContaining("at least one work item");
        assertThatThrownBy(() -> TransferScenario.builder(1).write(0, 1, 1).build()).hasMessageContaining("protocol");
    }

    @Test
    void metaRoCEIsPluggedInByName() {
        TransferScenario.builder(21).protocol(Protocols.byName("MetaRoCE", GoBackNConfig.defaults())).nodes(3)
                .randomWork(20, 30_000, 3).build().run();
        assertThatThrownBy(() -> Protocols.byName("tcp", GoBackNConfig.defaults())).hasMessageContaining("unknown")
                .hasMessageContaining("metaroce, gbn");
    }
}
