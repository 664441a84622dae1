package io.jccl.net.aeron;

import io.aeron.Aeron;
import java.nio.file.Path;

/** A media driver as an Aeron transport uses it: the driver's directory and the Aeron client connected to it. */
public abstract class AeronDriver {
    /** The driver's directory. */
    protected final Path directory;
    /** The Aeron client connected to the driver. */
    protected final Aeron aeron;

    /**
     * @param directory the driver's directory
     * @param aeron     the Aeron client connected to the driver
     */
    protected AeronDriver(Path directory, Aeron aeron) {
        this.directory = directory;
        this.aeron = aeron;
    }

    /** @return the Aeron client connected to the driver */
    public final Aeron aeron() {
        return aeron;
    }

    /** @return the driver's directory */
    public final Path directory() {
        return directory;
    }
}
