/*
 * What the UDP floor benchmarks share (udp_round_trip.c, udp_exchange_floor.c): a UDP socket bound to an ephemeral
 * port on 127.0.0.1, its address read back for the peer process.
 */
#ifndef JCCL_BENCH_UDP_LOOPBACK_H
#define JCCL_BENCH_UDP_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Opens the socket and fills *address with where it is bound. buffer_bytes > 0 asks that much send and receive
 * buffer of the kernel (it grants at most net.core.rmem_max / wmem_max); 0 keeps the defaults. Exits with status 1,
 * naming `program`, when anything fails.
 */
static int bound_loopback_socket(struct sockaddr_in *address, int buffer_bytes, const char *program) {
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    socklen_t length = sizeof *address;
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = s >= 0;
    if (ok && buffer_bytes > 0) {
        ok = setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes) == 0
                && setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof buffer_bytes) == 0;
    }
    if (!ok || bind(s, (struct sockaddr *) address, sizeof *address) != 0
            || getsockname(s, (struct sockaddr *) address, &length) != 0) {
        fprintf(stderr, "%s: socket: ", program);
        perror(NULL);
        exit(1);
    }
    return s;
}

#endif
