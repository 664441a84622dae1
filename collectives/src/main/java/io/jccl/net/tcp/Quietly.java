package io.jccl.net.tcp;

import java.io.Closeable;
import java.io.IOException;

/** Closing sockets, selectors and channels that are going away anyway: a failure to close them tells nothing useful. */
final class Quietly {
    private Quietly() {
    }

    /** Closes {@code resource} (null: nothing), ignoring an {@link IOException}. */
    static void close(Closeable resource) {
        if (resource != null) {
            try {
                resource.close();
            } catch (IOException ignored) {
                // it is going away anyway
            }
        }
    }

    /** Closes each of {@code resources} (null entries: nothing); one failing to close does not keep the rest open. */
    static void closeAll(Closeable[] resources) {
        for (Closeable resource : resources) {
            close(resource);
        }
    }
}
