package io.jccl.metaroce.sim;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** The memory regions registered with a {@link GoBackNEndpoint}, by key; key 0 is never handed out. */
final class GoBackNRegions {
    private MemorySegment[] regions = new MemorySegment[8];
    private boolean[] regionWritable = new boolean[8];
    private int regionCount = 1; // key 0 is never handed out

    /** @return the new region's key */
    int register(MemorySegment memory, boolean remoteWritable) {
        if (regionCount == regions.length) {
            regions = Arrays.copyOf(regions, regionCount * 2);
            regionWritable = Arrays.copyOf(regionWritable, regionCount * 2);
        }
        int key = regionCount++;
        regions[key] = memory;
        regionWritable[key] = remoteWritable;
        return key;
    }

    /** Forgets a region; an unknown key is ignored. */
    void deregister(int key) {
        if (key > 0 && key < regionCount) {
            regions[key] = null;
            regionWritable[key] = false;
        }
    }

    /** @return the region of {@code key} if peers may WRITE into it, else null */
    MemorySegment remotelyWritable(int key) {
        return key > 0 && key < regionCount && regionWritable[key] ? regions[key] : null;
    }
}
