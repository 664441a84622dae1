package io.jccl.cli.bench;

import picocli.CommandLine.Option;

/**
 * {@code --seed} of the commands whose runs are deterministic given it ({@code bench transport}, {@code bench loss},
 * {@code fabric}, the {@code sim} fabric commands): one seed, 1 unless given, for every random choice a run makes
 * ({@code @Mixin}).
 */
public final class SeedOption {
    @Option(names = "--seed", defaultValue = "1", description = "seed of every random choice the command makes "
            + "(losses and impairments, the bytes sent, the workload) (default ${DEFAULT-VALUE})")
    long seed;

    /** Created by picocli. */
    public SeedOption() {
    }

    /** @return the seed given, or 1 */
    public long seed() {
        return seed;
    }
}
