package io.jccl.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What {@link ShmExchangeFloor} and {@link TcpExchangeFloor} share: their arguments, their main and their two rank
 * processes (and, with {@link TcpBulkExchangeFloor}, the free loopback port where those meet).
 */
final class ExchangeFloors {
    private ExchangeFloors() {
    }

    /** One rank of a floor: exchanges with the other rank, found at {@code meetAt}, and returns its line. */
    interface Rank {
        String exchange(int rank, String meetAt, int exchanges, int reps) throws IOException, InterruptedException;
    }

    /** Work that may fail with an {@link IOException}. */
    interface IoAction {
        void run() throws IOException;
    }

    /**
     * Where the two rank processes find each other (passed to them as their last argument).
     *
     * @param address what the ranks are given
     * @param undo    what removes it once they are done
     */
    record MeetingPoint(String address, IoAction undo) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            undo.run();
        }
    }

    /** @return a loopback port free now (rank 0 binds it again, with retries) */
    static MeetingPoint freeLoopbackPort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new MeetingPoint(Integer.toString(probe.getLocalPort()), () -> { });
        }
    }

    /**
     * The main of an exchange floor: in a rank process (two more arguments, the rank and the meeting point), runs
     * {@code rank} and prints its line; else makes a meeting point and runs both ranks ({@link #runRanks}), printing
     * rank 0's line after {@code what}.
     */
    static void main(Class<?> main, String[] args, Rank rank, Callable<MeetingPoint> meeting, String what)
            throws Exception {
        int[] counts = counts(main.getSimpleName(), args);
        if (args.length == 4) {
            System.out.println(rank.exchange(Integer.parseInt(args[2]), args[3], counts[0], counts[1]));
            return;
        }
        try (MeetingPoint at = meeting.call()) {
            runRanks(main, args, at.address(), what);
        }
    }

    /**
     * Checks {@code EXCHANGES REPETITIONS} (and, in a rank process, two more arguments); exits 2 with a usage line
     * otherwise.
     *
     * @return exchanges and repetitions
     */
    static int[] counts(String name, String[] args) {
        MainArgs.require(args.length == 2 || args.length == 4, "usage: " + name + " EXCHANGES REPETITIONS");
        int exchanges = MainArgs.count(name, args[0]);
        int reps = MainArgs.count(name, args[1]);
        MainArgs.require(exchanges >= 1 && reps >= 1, name + ": the counts must be positive");
        return new int[] {exchanges, reps};
    }

    /**
     * Runs {@code main} as ranks 0 and 1 in two JVMs of this classpath, with {@code args}, the rank and {@code meetAt}
     * (where the two find each other), and prints rank 0's line after {@code what}; exits 1 when a rank fails.
     */
    static void runRanks(Class<?> main, String[] args, String meetAt, String what) throws IOException,
            InterruptedException {
        runRanks(main, List.of(args[0], args[1]), meetAt, what);
    }

    /** As {@link #runRanks(Class, String[], String, String)}, passing {@code passed} before the rank. */
    static void runRanks(Class<?> main, List<String> passed, String meetAt, String what) throws IOException,
            InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> ranks = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                    main.getName()));
            command.addAll(passed);
            command.add(Integer.toString(rank));
            command.add(meetAt);
            ranks.add(new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        String line = new String(ranks.get(0).getInputStream().readAllBytes()).strip();
        String other = new String(ranks.get(1).getInputStream().readAllBytes()).strip();
        if ((ranks.get(0).waitFor() | ranks.get(1).waitFor()) != 0) {
            System.err.println(main.getSimpleName() + ": a rank failed: " + line + " / " + other);
            System.exit(1);
        }
        System.out.println(what + ", µs per exchange: " + line);
    }
}
