package io.jccl.net.tcp;

/**
 * Which sockets of a connection carry what, for one direction.
 *
 * <p>One way (a connection that was not offered): socket 0 carries every header and every short message, and a
 * message split into stripes has stripe {@code i} on socket {@code i}.
 *
 * <p>Shared (an offered connection, {@link Wire#FLAG_OFFER}: {@code 1 + 2n} sockets that both directions between
 * two ranks use): socket 0 carries both directions' headers and short messages, so each direction's data carries
 * the other's acknowledgements; sockets {@code 1..n} carry the payloads of the offering side's bulk messages
 * ({@link Wire#FLAG_BULK}), sockets {@code n+1..2n} those of the taking side's. Two directions' bulk through one
 * socket contend for its lock in the kernel and were slower than one socket each (docs/performance.md).
 *
 * @param bulkFirst the first socket that carries this direction's bulk payloads, or 0 (one way)
 * @param bulkCount the sockets that carry them, or 0 (one way)
 */
record SocketLayout(int bulkFirst, int bulkCount) {
    /** The layout of a connection that was not offered. */
    static final SocketLayout ONE_WAY = new SocketLayout(0, 0);

    SocketLayout {
        if (bulkCount < 0 || (bulkCount == 0) != (bulkFirst == 0)) {
            throw new IllegalArgumentException("bulk sockets " + bulkFirst + " + " + bulkCount);
        }
    }

    /**
     * @param socketCount the sockets of an offered connection, {@code 1 + 2n}
     * @param offering    the offering side's direction (else the taking side's)
     * @return the layout of that direction
     */
    static SocketLayout shared(int socketCount, boolean offering) {
        int perDirection = bulkPerDirection(socketCount);
        return new SocketLayout(offering ? 1 : 1 + perDirection, perDirection);
    }

    /** @return the bulk sockets per direction of an offered connection of {@code socketCount} sockets */
    static int bulkPerDirection(int socketCount) {
        if (!isSharedSocketCount(socketCount)) {
            throw new IllegalArgumentException("an offered connection has 1 + 2n sockets, n >= 1, not " + socketCount);
        }
        return (socketCount - 1) / 2;
    }

    /** @return whether an offered connection may have {@code socketCount} sockets: {@code 1 + 2n}, {@code n >= 1} */
    static boolean isSharedSocketCount(int socketCount) {
        return socketCount >= 3 && socketCount % 2 == 1;
    }

    /** @return whether socket 0 is shared with the other direction and bulk payloads go on sockets of their own */
    boolean shared() {
        return bulkCount > 0;
    }
}
