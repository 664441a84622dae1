package io.jccl.metaroce.net;

import io.jccl.metaroce.protocol.wire.DataFlyweight;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/** How many payload bytes a MetaRoCE packet of the {@code metaroce} transport carries: what fits one IP packet. */
final class PacketPayload {
    private PacketPayload() {
    }

    /**
     * The payload per packet of a connection to a peer: {@code JCCL_METAROCE_PAYLOAD_BYTES} when set; else what fits
     * one IP packet — to an address of this host, loopback's MTU (the kernel carries such traffic on the loopback
     * device whatever the address), else the bind interface's.
     *
     * @param peerOnThisHost  what {@link #onThisHost} said of the peer's address
     * @param configuredBytes {@code JCCL_METAROCE_PAYLOAD_BYTES}, 0 when not set
     */
    static int towards(boolean peerOnThisHost, int configuredBytes, InetAddress bindAddress) {
        if (configuredBytes != 0) {
            return configuredBytes;
        }
        return forMtu(peerOnThisHost ? InetAddress.getLoopbackAddress() : bindAddress);
    }

    /** @return whether {@code address} is one of this host's (loopback or an interface's): its traffic stays here */
    static boolean onThisHost(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;   // not known here: treat as remote
        }
    }

    /**
     * The payload that fits one IP packet on an address's interface: MTU less the IP and UDP headers, the MetaRoCE
     * DATA header, an immediate and the CRC, rounded down to 8 bytes; 1400 where the MTU cannot be read.
     */
    static int forMtu(InetAddress address) {
        int mtu = 1500;
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            if (nif != null && nif.getMTU() > 0) {
                mtu = nif.getMTU();
            }
        } catch (SocketException e) {
            // keep the Ethernet default
        }
        int ipAndUdp = (address instanceof Inet6Address ? 40 : 20) + 8;
        // The last packet of a WRITE with immediate carries 4 bytes more than its payload: it must fit too.
        int payload = mtu - ipAndUdp - DataFlyweight.DATA_HEADER_LENGTH - DataFlyweight.IMMEDIATE_LENGTH
                - Integer.BYTES;
        return Math.clamp(payload & ~7, 256, 65000);
    }
}
