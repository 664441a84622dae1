package io.jccl.cli.tools;

import java.lang.management.ManagementFactory;

/** A rank that prints each of its JVM options as {@code jvm-option <option>} and ends (tests). */
public final class PrintJvmOptionsMain {
    private PrintJvmOptionsMain() {
    }

    /** @param args ignored */
    public static void main(String[] args) {
        for (String o : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            System.out.println("jvm-option " + o);
        }
    }
}
