/*
 * syscall_cost: what one system call costs on this host, the unit every UDP design here pays per datagram batch,
 * per readiness poll and per control datagram (a 2-vCPU KVM guest whose entries and exits go through the
 * hypervisor: `pvm_irq_enable` leads perf profiles of the MetaRoCE runs). Times, in one thread, N calls each of:
 * getppid (the bare entry and exit), epoll_wait with timeout 0 over 16 idle UDP sockets (a duty cycle's readiness
 * poll with MetaRoCE's 2 x 8 path sockets), recv and recvmmsg (8 slots) on an empty non-blocking UDP socket.
 * Build: cc -O2 -std=c11 -Wall -Wextra -Werror -o benchmarks/target/mpi/syscall_cost benchmarks/mpi/syscall_cost.c
 * Usage: syscall_cost [CALLS]   (default 1000000; three rounds, one line each, ns per call)
 * Exit status 1 when a socket or the epoll set cannot be set up, 2 for a bad argument.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "floor.h"

#define SOCKETS 16
#define SLOTS 8

int main(int argc, char **argv) {
    long calls = 1000000;
    if (argc > 2 || (argc == 2 && (calls = strtol(argv[1], NULL, 10)) <= 0)) {
        fprintf(stderr, "usage: syscall_cost [CALLS]   (CALLS a positive whole number)\n");
        return 2;
    }
    int epoll = epoll_create1(0);
    int sockets[SOCKETS];
    for (int i = 0; i < SOCKETS; i++) {
        sockets[i] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        struct sockaddr_in address = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct epoll_event event = { .events = EPOLLIN, .data.u32 = (unsigned) i };
        if (epoll < 0 || sockets[i] < 0 || bind(sockets[i], (struct sockaddr *) &address, sizeof address) != 0
                || epoll_ctl(epoll, EPOLL_CTL_ADD, sockets[i], &event) != 0) {
            perror("syscall_cost: socket setup");
            return 1;
        }
    }
    struct epoll_event ready[SOCKETS];
    char buffer[64];
    struct iovec vectors[SLOTS];
    struct mmsghdr messages[SLOTS];
    for (int k = 0; k < SLOTS; k++) {
        vectors[k] = (struct iovec) { .iov_base = buffer, .iov_len = sizeof buffer };
        messages[k] = (struct mmsghdr) { .msg_hdr = { .msg_iov = &vectors[k], .msg_iovlen = 1 } };
    }
    for (int round = 0; round < 3; round++) {
        double t0 = (double) floor_now_ns();
        for (long i = 0; i < calls; i++) {
            syscall(SYS_getppid);
        }
        double t1 = (double) floor_now_ns();
        for (long i = 0; i < calls; i++) {
            epoll_wait(epoll, ready, SOCKETS, 0);
        }
        double t2 = (double) floor_now_ns();
        for (long i = 0; i < calls; i++) {
            recv(sockets[0], buffer, sizeof buffer, MSG_DONTWAIT);
        }
        double t3 = (double) floor_now_ns();
        for (long i = 0; i < calls; i++) {
            recvmmsg(sockets[0], messages, SLOTS, MSG_DONTWAIT, NULL);
        }
        double t4 = (double) floor_now_ns();
        printf("ns per call: getppid %.0f, epoll_wait(%d sockets, 0) %.0f, recv (empty) %.0f, recvmmsg (empty) %.0f\n",
               (t1 - t0) / calls, SOCKETS, (t2 - t1) / calls, (t3 - t2) / calls, (t4 - t3) / calls);
    }
    return 0;
}
