package io.jccl.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What {@link ShmExchangeFloor} and {@link TcpExchangeFloor} share: their arguments and their two rank processes. */
final class ExchangeFloors {
    private ExchangeFloors() {
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
