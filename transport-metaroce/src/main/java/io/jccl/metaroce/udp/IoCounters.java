package io.jccl.metaroce.udp;

/**
 * What a driver's path sockets count, shared by all of them (a re-route replaces a socket, not its counts). Plain
 * fields: one thread steps the driver.
 */
final class IoCounters {
    /** Datagrams handed to the kernel (each segment of a GSO message counts). */
    long datagramsSent;
    /** Datagrams the kernel did not take: the send buffer was full. */
    long sendsRefused;
    /** Socket errors on send or receive, and datagrams that could not be sent or were truncated. */
    long ioErrors;
    /** Datagrams sent as segments of a UDP GSO message. */
    long gsoSegmentsSent;
    /** UDP GSO messages sent (each carries two or more datagrams): segments over messages is the average run. */
    long gsoMessagesSent;
    /** Datagrams cut out of a coalesced (UDP GRO) receive. */
    long groSegmentsReceived;
    /** Send system calls ({@code send} or {@code sendmmsg}) that took at least one datagram. */
    long sendCalls;
    /** Receive system calls that returned at least one datagram. */
    long receiveCalls;
}
