package io.jccl.cli.bench.loss.tun;

import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * PLACEHOLDER, to be replaced by the real class from branch {@code tun-link} (a TUN packet relay between two network
 * namespaces). Only its API is here, as that branch's author described it, so that {@code bench-loss} compiles
 * before the two branches meet: it always reports itself unavailable and cannot be opened. When merging, take the
 * {@code tun-link} version of this file and delete this one.
 */
public final class TunLossLink implements AutoCloseable {
    /**
     * What to set up.
     *
     * @param lossRate     probability that a packet is dropped, each direction on its own
     * @param seed         seed of the random drops
     * @param mtuBytes     MTU of the TUN interfaces
     * @param subnetPrefix the first three octets of the link's IPv4 /24, e.g. {@code 10.77.0}
     */
    public record Settings(double lossRate, long seed, int mtuBytes, String subnetPrefix) {
        /**
         * @param lossRate probability that a packet is dropped
         * @param seed     seed of the random drops
         * @return settings with the default MTU and subnet
         */
        public static Settings of(double lossRate, long seed) {
            return new Settings(lossRate, seed, 1500, "10.77.0");
        }
    }

    private TunLossLink() {
    }

    /** @return why the link cannot be set up here: always, in this placeholder */
    public static Optional<String> unavailableReason() {
        return Optional.of("not in this build (placeholder: branch tun-link is not merged yet)");
    }

    /**
     * @param s what to set up
     * @return never
     * @throws UnsupportedOperationException always, in this placeholder
     */
    public static TunLossLink open(Settings s) {
        throw new UnsupportedOperationException("TunLossLink: " + unavailableReason().orElseThrow());
    }

    /**
     * @param side 0 or 1
     * @return the words that run a command in that side's namespace
     */
    public List<String> commandPrefix(int side) {
        throw new UnsupportedOperationException();
    }

    /**
     * @param side 0 or 1
     * @return that side's address on the link
     */
    public InetAddress address(int side) {
        throw new UnsupportedOperationException();
    }

    /** @return packets the relay passed on */
    public long forwardedPackets() {
        throw new UnsupportedOperationException();
    }

    /** @return packets the relay dropped (the random loss) */
    public long droppedPackets() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
