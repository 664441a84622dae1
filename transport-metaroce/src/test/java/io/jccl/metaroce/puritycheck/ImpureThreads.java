package io.jccl.metaroce.puritycheck;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.ReentrantLock;

/** Breaks "no threads": threads, executors, locks, sleeping, concurrent collections. */
final class ImpureThreads {
    private final ReentrantLock lock = new ReentrantLock();
    private final ConcurrentHashMap<Integer, Integer> map = new ConcurrentHashMap<>();

    void work() throws InterruptedException {
        new Thread(() -> { }).start();
        final ExecutorService executor = Executors.newSingleThreadExecutor();
        executor.shutdown();
        Thread.sleep(1);
        lock.lock();
        lock.unlock();
        map.put(1, 1);
    }
}
