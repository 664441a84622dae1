package io.jccl.metaroce.fabric;

/** The one thread a relay runs its forwarding loop on: started once, stopped and joined when the relay closes. */
final class RelayThread {
    private final String what;
    private final String threadName;
    private volatile boolean running;
    private Thread thread;

    /**
     * @param what       the relay, as error messages name it
     * @param threadName the thread's name
     */
    RelayThread(String what, String threadName) {
        this.what = what;
        this.threadName = threadName;
    }

    /** Starts {@code loop} on a daemon thread; it should run while {@link #running()}. */
    synchronized void start(Runnable loop) {
        if (thread != null) {
            throw new IllegalStateException("the " + what + " is already started");
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name(threadName).start(loop);
    }

    /** @return false once {@link #stop()} was called */
    boolean running() {
        return running;
    }

    /** Asks the loop to end and waits for it (10 s at most). */
    void stop() {
        running = false;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
