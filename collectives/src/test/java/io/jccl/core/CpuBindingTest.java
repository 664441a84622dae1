package io.jccl.core;

import io.jccl.CommConfig;
import io.jccl.Communicator;
import io.jccl.UniqueId;
import io.jccl.net.PeerIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code JCCL_CPU_BIND=share} on Linux (the build's test JVMs grant native access): the creating thread is bound to
 * its rank's share of the CPUs, threads it starts inherit that, and JCCL's own threads give it back. Read from
 * {@code /proc/self/task/TID/status} ({@code Cpus_allowed_list}), not through the class under test. Each case binds
 * a thread of its own, never the test runner's. With one CPU allowed, a share is every CPU: nothing to see.
 */
@Timeout(120)
class CpuBindingTest {
    @Test
    void bindsTheCallingThreadToItsShareAndUnboundThreadsGetTheRestBack() throws Exception {
        assumeTrue(CpuBinding.supported(), "Linux with native access only");
        List<Integer> allowed = cpus(ownStatus());
        assumeTrue(allowed.size() >= 2, "a share of one CPU is all of them");
        assertThat(CpuBinding.allowedCpus()).isEqualTo(allowed.size());
        AtomicReference<String> bound = new AtomicReference<>();
        AtomicReference<String> inherited = new AtomicReference<>();
        AtomicReference<String> released = new AtomicReference<>();
        AtomicReference<Integer> cpu = new AtomicReference<>();
        runOnNewThread(() -> {
            cpu.set(CpuBinding.bindCurrentThread(1, 2));   // the second half
            bound.set(ownStatus());
            inherited.set(onNewThread(false));
            released.set(onNewThread(true));
        });
        int half = allowed.size() / 2;
        assertThat(cpu.get()).isEqualTo(allowed.get(half));
        assertThat(cpus(bound.get())).containsExactlyElementsOf(allowed.subList(half, 2 * half));
        assertThat(cpus(inherited.get())).as("a thread the bound one starts inherits its CPUs")
                .containsExactlyElementsOf(allowed.subList(half, 2 * half));
        assertThat(cpus(released.get())).as("one started through unbound() runs anywhere again")
                .containsExactlyElementsOf(allowed);
        assertThat(cpus(ownStatus())).as("the test runner's thread is untouched").containsExactlyElementsOf(allowed);
    }

    @Test
    void refusesMoreSharesThanCpusAndIndexesOutsideTheShares() throws Exception {
        assumeTrue(CpuBinding.supported(), "Linux with native access only");
        List<Integer> allowed = cpus(ownStatus());
        AtomicReference<String> after = new AtomicReference<>();
        runOnNewThread(() -> {
            assertThat(CpuBinding.bindCurrentThread(0, allowed.size() + 1)).isEqualTo(-1);
            assertThat(CpuBinding.bindCurrentThread(2, 2)).isEqualTo(-1);
            assertThat(CpuBinding.bindCurrentThread(-1, 2)).isEqualTo(-1);
            assertThat(CpuBinding.bindCurrentThread(0, 0)).isEqualTo(-1);
            after.set(ownStatus());
        });
        assertThat(cpus(after.get())).as("nothing bound").containsExactlyElementsOf(allowed);
    }

    @Test
    void theSecondOfTwoRanksOnAHostTakesTheSecondShare() throws Exception {
        assumeTrue(CpuBinding.supported(), "Linux with native access only");
        List<Integer> allowed = cpus(ownStatus());
        assumeTrue(allowed.size() >= 2, "a share of one CPU is all of them");
        PeerIdentity[] peers = {new PeerIdentity(0, "host-a", "jvm-0"), new PeerIdentity(1, "host-b", "jvm-1"),
            new PeerIdentity(2, "host-a", "jvm-2")};
        AtomicReference<String> rankTwo = new AtomicReference<>();
        runOnNewThread(() -> {
            CommInit.bindCaller(2, peers, 1, 2);   // rank 2 is host-a's second rank
            rankTwo.set(ownStatus());
        });
        int half = allowed.size() / 2;
        assertThat(cpus(rankTwo.get())).containsExactlyElementsOf(allowed.subList(half, 2 * half));
        AtomicReference<String> sharedJvm = new AtomicReference<>();
        runOnNewThread(() -> {
            CommInit.bindCaller(2, peers, 2, 2);   // two ranks in this JVM: its threads are not one rank's
            sharedJvm.set(ownStatus());
        });
        assertThat(cpus(sharedJvm.get())).containsExactlyElementsOf(allowed);
    }

    @Test
    void aCommunicatorsThreadsDoNotInheritItsCreatorsBinding() throws Exception {
        assumeTrue(CpuBinding.supported(), "Linux with native access only");
        List<Integer> allowed = cpus(ownStatus());
        assumeTrue(allowed.size() >= 2, "a share of one CPU is all of them");
        AtomicReference<String> creator = new AtomicReference<>();
        AtomicReference<Map<String, String>> others = new AtomicReference<>();
        runOnNewThread(() -> {
            CpuBinding.bindCurrentThread(0, 2);   // as a rank's caller that JCCL_CPU_BIND bound
            CommConfig config = CommConfig.builder().cpuBind("none").warmup(java.time.Duration.ZERO).build();
            try (Communicator comm = Communicator.init(UniqueId.create(), 0, 1, config)) {
                creator.set(ownStatus());
                others.set(jcclThreads());
            }
        });
        assertThat(cpus(creator.get())).containsExactlyElementsOf(allowed.subList(0, allowed.size() / 2));
        assertThat(others.get()).as("the communicator's threads").isNotEmpty();
        others.get().forEach((name, status) -> assertThat(cpus(status)).as(name).containsExactlyElementsOf(allowed));
    }

    @Test
    void noneLeavesTheCreatorAlone() throws Exception {
        List<Integer> allowed = cpus(ownStatus());
        AtomicReference<String> creator = new AtomicReference<>();
        runOnNewThread(() -> {
            CommConfig config = CommConfig.builder().cpuBind("none").warmup(java.time.Duration.ZERO).build();
            try (Communicator comm = Communicator.init(UniqueId.create(), 0, 1, config)) {
                creator.set(ownStatus());
            }
        });
        assertThat(cpus(creator.get())).containsExactlyElementsOf(allowed);
    }

    /** Starts a thread (through {@link CpuBinding#unbound} when asked) and returns its status as it saw it. */
    private static String onNewThread(boolean unbound) {
        AtomicReference<String> status = new AtomicReference<>();
        Runnable read = () -> status.set(ownStatus());
        Thread t = Thread.ofPlatform().unstarted(unbound ? CpuBinding.unbound(read) : read);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return status.get();
    }

    private static void runOnNewThread(Runnable task) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread t = Thread.ofPlatform().name("cpu-binding-test").start(() -> {
            try {
                task.run();
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        t.join();
        if (failure.get() != null) {
            throw new AssertionError("the bound thread failed", failure.get());
        }
    }

    private static String ownStatus() {
        try {
            return Files.readString(Path.of("/proc/thread-self/status"));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Name to status of this JVM's threads named jccl-* (the communicator's). */
    private static Map<String, String> jcclThreads() {
        Map<String, String> found = new java.util.TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (name.startsWith("jccl-") && !name.startsWith("jccl-init")) {
                        found.put(name + "/" + task.getFileName(), Files.readString(task.resolve("status")));
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return found;
    }

    /** The CPUs of a status file's Cpus_allowed_list ("0-3,6"). */
    private static List<Integer> cpus(String status) {
        String list = status.lines().filter(l -> l.startsWith("Cpus_allowed_list:")).findFirst()
                .orElseThrow().substring("Cpus_allowed_list:".length()).strip();
        List<Integer> out = new ArrayList<>();
        for (String range : list.split(",")) {
            String[] ends = range.split("-");
            int from = Integer.parseInt(ends[0]);
            int to = ends.length == 2 ? Integer.parseInt(ends[1]) : from;
            for (int c = from; c <= to; c++) {
                out.add(c);
            }
        }
        return out;
    }
}
