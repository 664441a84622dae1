package io.jccl.examples.djl;

import java.util.Locale;

/** Conditions and helpers shared by this module's tests. */
final class DjlTestSupport {
    private DjlTestSupport() {
    }

    /**
     * @return whether PyTorch can run here: the pytorch-native-cpu jar (linux-x86_64, the one this module depends
     *         on) is on the class path and this is a Linux x86-64 JVM
     */
    static boolean pytorchNativesPresent() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64"))
                && DjlTestSupport.class.getClassLoader().getResource("native/lib/pytorch.properties") != null;
    }
}
