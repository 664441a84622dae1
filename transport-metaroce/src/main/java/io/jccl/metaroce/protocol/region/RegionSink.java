package io.jccl.metaroce.protocol.region;

import java.lang.foreign.MemorySegment;

/**
 * Takes what peers' WRITEs place into a region that is not memory: each packet's payload where the datagram holds
 * it, so a receiver can combine it into its result instead of having it copied somewhere first. Every byte of the
 * region is given at most once per WRITE (duplicates of a placed packet are dropped before they get here), in
 * whatever order the packets arrive.
 */
@FunctionalInterface
public interface RegionSink {
    /**
     * Takes one packet's payload. The memory is the driver's: read it during this call only, never write it.
     *
     * @param from         memory holding the payload
     * @param fromOffset   where the payload starts in {@code from}
     * @param regionOffset where it goes in the region
     * @param bytes        the payload's length
     */
    void accept(MemorySegment from, long fromOffset, long regionOffset, long bytes);
}
