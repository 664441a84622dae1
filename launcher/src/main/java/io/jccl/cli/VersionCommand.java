package io.jccl.cli;

import io.jccl.net.NetTransportProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;

/** {@code jccl version}: JCCL's version and what this machine offers it. */
@Command(name = "version", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "Print the JCCL version, the Java runtime and the available transports.")
public final class VersionCommand implements Runnable {
    /** Created by picocli. */
    public VersionCommand() {
    }

    @Override
    public void run() {
        for (String line : lines()) {
            System.out.println(line);
        }
    }

    /** @return JCCL's version, or {@code unknown} */
    public static String version() {
        try (InputStream in = VersionCommand.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    static List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("JCCL " + version());
        out.add("Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                + System.getProperty("java.home") + ")");
        out.add("OS " + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + ", " + Runtime.getRuntime().availableProcessors() + " CPUs");
        boolean vector = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        out.add("Vector API " + (vector ? "enabled" : "not enabled (start the JVM with --add-modules=jdk.incubator.vector)"));
        List<String> transports = new ArrayList<>();
        ServiceLoader.load(NetTransportProvider.class).forEach(p -> transports.add(p.name() + " (priority "
                + p.priority() + ")"));
        out.add("Transports " + String.join(", ", transports));
        return out;
    }

    /** Supplies {@code jccl --version}. */
    public static final class Provider implements IVersionProvider {
        /** Created by picocli. */
        public Provider() {
        }

        @Override
        public String[] getVersion() {
            return lines().toArray(new String[0]);
        }
    }
}
