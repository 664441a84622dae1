package io.jccl.metaroce.puritycheck;

/** Breaks "no console". */
final class ImpureConsole {
    private ImpureConsole() {
    }

    static void log(String message) {
        System.out.println(message);
        System.err.println(message);
    }
}
