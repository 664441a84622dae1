package io.jccl.metaroce.udp;

/** How a {@link UdpDriver} moves datagrams between its path sockets and the kernel. */
public enum IoMethod {
    /** {@link #NATIVE} where it is available (Linux on x86_64 or aarch64, an IPv4 bind address), else {@link #CHANNEL}. */
    AUTO,
    /**
     * Linux system calls through the Foreign Function &amp; Memory API: {@code recvmmsg}/{@code sendmmsg} batches,
     * UDP GSO and GRO, ECN (sends ECT(0), reads the CE mark). IPv4 only.
     */
    NATIVE,
    /**
     * {@link java.nio.channels.DatagramChannel}: one system call per datagram, sends ECT(0) where the JDK can set
     * {@code IP_TOS}, cannot read the ECN mark of what arrives (everything counts as unmarked). Any OS, IPv4 or IPv6.
     */
    CHANNEL
}
