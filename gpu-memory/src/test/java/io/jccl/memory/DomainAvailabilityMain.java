package io.jccl.memory;

import io.jccl.JcclException;

import java.util.Map;

/**
 * Prints what {@link MemoryDomains} finds, one provider a line ({@code cuda: unavailable: <reason>},
 * {@code host: available}), then {@code auto: <name>}, then for each domain named in the arguments the result of
 * opening its device 0 ({@code open cuda: <properties>} or {@code open cuda: failed: <code>: <message>}). Exits 0
 * whatever the answers — 1 only if something escaped, which must never happen. Run in child JVMs by the tests (with
 * parts of JCuda removed from the class path) and by {@code benchmarks/gpu/run-gpu-checks.sh}.
 */
public final class DomainAvailabilityMain {
    private DomainAvailabilityMain() {
    }

    /** @param args domains to open on device 0 */
    public static void main(String[] args) {
        try {
            for (Map.Entry<String, Availability> e : MemoryDomains.availability().entrySet()) {
                Availability a = e.getValue();
                System.out.println(e.getKey() + ": " + (a.available() ? "available" : "unavailable: " + a.reason()));
            }
            System.out.println("auto: " + MemoryDomains.select("auto").name());
            for (String name : args) {
                try (MemoryDomain d = MemoryDomains.open(name, 0)) {
                    DeviceProperties p = d.properties();
                    System.out.println("open " + name + ": " + p.name() + ", " + d.deviceCount() + " device"
                            + (d.deviceCount() == 1 ? "" : "s") + ", " + (p.totalMemoryBytes() >> 20) + " MiB");
                } catch (JcclException e) {
                    System.out.println("open " + name + ": failed: " + e.code() + ": " + e.detail());
                }
            }
        } catch (Throwable t) {
            System.out.println("ESCAPED: " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }
}
