package io.jccl.metaroce.simnet;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/** A fault the whole-stack simulation can inject; each seed draws its own intensities and times. */
public enum Fault {
    /** Random loss on every route, 0.1% to 5% per seed. */
    LOSS,
    /** Duplicated datagrams, up to 2%. */
    DUP,
    /** Reordering within a route, up to 10% of datagrams held back. */
    REORDER,
    /** Corrupted datagrams (dropped by the CRC check), up to 1%. */
    CORRUPT,
    /** Some paths of some rank pairs silently drop everything for a while (never every path of a pair). */
    BLACKHOLE,
    /** Some paths go down and up repeatedly. */
    FLAP,
    /** One rank dies (stops dead) when it reaches a random operation; every survivor must fail, clearly, in time. */
    CRASH;

    /** @return the name the command line uses ({@code loss}, {@code blackhole}, ...) */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param spec comma-separated fault names, e.g. {@code loss,blackhole,flap,crash}; empty or {@code none} for none
     * @return the faults
     * @throws IllegalArgumentException naming the unknown fault and the known ones
     */
    public static Set<Fault> parse(String spec) {
        Set<Fault> faults = EnumSet.noneOf(Fault.class);
        if (spec == null || spec.isBlank() || spec.strip().equalsIgnoreCase("none")) {
            return faults;
        }
        for (String part : spec.split(",", -1)) {
            String name = part.strip();
            try {
                faults.add(Fault.valueOf(name.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                StringBuilder known = new StringBuilder();
                for (Fault f : values()) {
                    known.append(known.isEmpty() ? "" : ", ").append(f.cliName());
                }
                throw new IllegalArgumentException("unknown fault '" + name + "' in '" + spec + "': the faults are "
                        + known + " (or none)");
            }
        }
        return faults;
    }

    /** @return the faults as the command line names them, comma-separated ({@code none} for none) */
    public static String format(Set<Fault> faults) {
        return faults.isEmpty() ? "none" : faults.stream().map(Fault::cliName).collect(Collectors.joining(","));
    }
}
