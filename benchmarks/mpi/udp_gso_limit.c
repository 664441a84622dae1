/*
 * udp_gso_limit: how many equal UDP datagrams one GSO send may carry here. A sender hands the kernel one buffer with
 * a UDP_SEGMENT control message giving the segment size, and the kernel cuts it into datagrams; the buffer must fit
 * one UDP datagram's length field (65,507 bytes of payload over IPv4). This tries 1, 2, ... segments of SEGMENT bytes
 * in one sendmsg to a socket on 127.0.0.1, receives what arrived, and prints the largest run the kernel accepted and
 * why the next was refused. MetaRoCE's DATA datagram at 4 KiB payloads is 4,164 bytes (20 + 44 header, 4,096
 * payload, 4 CRC), hence the default: issue 16 asked for GSO runs of at least 16 such datagrams.
 *
 * Build: cc -O2 -std=c11 -Wall -Wextra -o benchmarks/target/mpi/udp_gso_limit benchmarks/mpi/udp_gso_limit.c
 * Usage: udp_gso_limit [SEGMENT]      (bytes per datagram, 1-65507; default 4164)
 * Output: one line per run tried until the first refusal, then "largest GSO run of SEGMENT-byte datagrams: N".
 * Exit status 2 for a bad argument, 1 when the kernel has no UDP GSO or a socket cannot be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "udp_loopback.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#define MAX_SEGMENTS 64

int main(int argc, char **argv) {
    long segment = 4164;
    if (argc > 2 || (argc == 2 && ((segment = strtol(argv[1], NULL, 10)) < 1 || segment > 65507))) {
        fprintf(stderr, "usage: udp_gso_limit [SEGMENT]   (bytes per datagram, 1-65507)\n");
        return 2;
    }
    struct sockaddr_in to, from;
    int rx = bound_loopback_socket(&to, 4 << 20, "udp_gso_limit");
    int tx = bound_loopback_socket(&from, 4 << 20, "udp_gso_limit");
    static char data[MAX_SEGMENTS * 65507];
    static char in[65536];
    memset(data, 0x5a, sizeof data);
    int largest = 0;
    for (int n = 1; n <= MAX_SEGMENTS; n++) {
        struct iovec iov = {data, (size_t) (n * segment)};
        char control[CMSG_SPACE(sizeof(uint16_t))];
        memset(control, 0, sizeof control);
        struct msghdr m = {.msg_name = &to, .msg_namelen = sizeof to, .msg_iov = &iov, .msg_iovlen = 1,
                           .msg_control = control, .msg_controllen = sizeof control};
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t size = (uint16_t) segment;
        memcpy(CMSG_DATA(c), &size, sizeof size);
        if (sendmsg(tx, &m, 0) < 0) {
            int why = errno;
            if (n == 1) {
                fprintf(stderr, "udp_gso_limit: even one segment was refused (%s): no UDP GSO here?\n",
                        strerror(why));
                return 1;
            }
            printf("%2d segments of %ld bytes (%ld bytes in one send): refused, %s\n", n, segment, n * segment,
                   strerror(why));
            break;
        }
        int arrived = 0;
        while (arrived < n && recv(rx, in, sizeof in, 0) == segment) {
            arrived++;
        }
        printf("%2d segments of %ld bytes (%ld bytes in one send): sent, %d datagrams arrived\n", n, segment,
               n * segment, arrived);
        if (arrived != n) {
            fprintf(stderr, "udp_gso_limit: %d of %d datagrams arrived\n", arrived, n);
            return 1;
        }
        largest = n;
    }
    printf("largest GSO run of %ld-byte datagrams: %d\n", segment, largest);
    close(tx);
    close(rx);
    return 0;
}
