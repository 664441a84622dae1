/*
 * udp_exchange_floor: what a 2-rank all-reduce between two processes costs when every byte crosses UDP on loopback
 * and nothing else is done: the floor under any all-reduce built on UDP sockets here (MetaRoCE's included), to set
 * beside Open MPI's over tcp. Two processes (a fork), each with one UDP socket on 127.0.0.1 (send and receive
 * buffers as large as the host allows, up to 4 MiB), exchange their whole input (recursive doubling, one round):
 *   each sends its input as 65,000-byte datagrams (the payload MetaRoCE uses on loopback; sendmmsg, 16 per call),
 *   and receives the peer's straight into its result buffer (recvmmsg, the iovecs pointing at the result: loopback
 *   delivers one socket's datagrams in order, so datagram j lands at offset j * 65,000), then adds its own input
 *   into the result (float sum), one pass.
 * No headers, no checksums, no acknowledgements, no retransmission, no copy in user space: the kernel's two copies
 * (user to socket buffer, socket buffer to user) and the reduction are all that is left. Flow control: a rank sends
 * datagram k only once it has received k - WINDOW of its peer's (both ranks send alike, so this bounds what waits in
 * either socket buffer to WINDOW datagrams, 1 MiB); nothing is lost (checked: an all-reduce whose datagrams do not
 * all arrive would hang, and the result is checked after the timing).
 * Out of place (input and result distinct) only, as compare.sh's first column. The processes are not pinned.
 *
 * Build: cc -O3 -march=native -std=c11 -Wall -Wextra -o benchmarks/target/mpi/udp_exchange_floor \
 *        benchmarks/mpi/udp_exchange_floor.c
 * Usage: udp_exchange_floor [-n ITERS] [-w WARMUP] [-r ROUNDS] size...   (bytes per rank, multiples of 4, K/M)
 * Output: per size one line: "udp exchange floor SIZE B: X us (busbw Y GB/s)", the mean of the fastest round.
 * Exit status 2 for a bad argument, 1 when a socket cannot be set up or a result is wrong.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.h"
#include "udp_loopback.h"

#define DATAGRAM_BYTES 65000
#define BATCH 16
#define WINDOW 16
#define SOCKET_BUFFER_BYTES (4 << 20)


static void *pages(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("udp_exchange_floor: mmap");
        exit(1);
    }
    memset(p, 0, bytes);   /* first touch before any timing */
    return p;
}

typedef struct {
    int socket;
    struct sockaddr_in peer;
    long long sent;       /* datagrams sent since the start, across calls */
    long long received;   /* datagrams received since the start, across calls */
    struct mmsghdr messages[BATCH];
    struct iovec iovecs[BATCH];
} Rank;

/* One all-reduce of `bytes`: the input out, the peer's input into result, then result += input. */
static void all_reduce(Rank *r, const float *input, float *result, size_t bytes) {
    long long datagrams = (long long) ((bytes + DATAGRAM_BYTES - 1) / DATAGRAM_BYTES);
    long long send_base = r->sent;
    long long receive_base = r->received;
    long long to_send = send_base + datagrams;
    long long to_receive = receive_base + datagrams;
    while (r->sent < to_send || r->received < to_receive) {
        long long room = r->received + WINDOW - r->sent;
        int n = 0;
        while (r->sent + n < to_send && n < room && n < BATCH) {
            long long j = r->sent + n - send_base;
            size_t offset = (size_t) j * DATAGRAM_BYTES;
            r->iovecs[n].iov_base = (char *) input + offset;
            r->iovecs[n].iov_len = bytes - offset < DATAGRAM_BYTES ? bytes - offset : DATAGRAM_BYTES;
            memset(&r->messages[n].msg_hdr, 0, sizeof r->messages[n].msg_hdr);
            r->messages[n].msg_hdr.msg_name = &r->peer;
            r->messages[n].msg_hdr.msg_namelen = sizeof r->peer;
            r->messages[n].msg_hdr.msg_iov = &r->iovecs[n];
            r->messages[n].msg_hdr.msg_iovlen = 1;
            n++;
        }
        if (n > 0) {
            int sent = sendmmsg(r->socket, r->messages, (unsigned) n, MSG_DONTWAIT);
            if (sent > 0) {
                r->sent += sent;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                perror("udp_exchange_floor: sendmmsg");
                exit(1);
            }
        }
        n = 0;
        while (r->received + n < to_receive && n < BATCH) {
            long long j = r->received + n - receive_base;
            size_t offset = (size_t) j * DATAGRAM_BYTES;
            r->iovecs[n].iov_base = (char *) result + offset;
            r->iovecs[n].iov_len = bytes - offset < DATAGRAM_BYTES ? bytes - offset : DATAGRAM_BYTES;
            memset(&r->messages[n].msg_hdr, 0, sizeof r->messages[n].msg_hdr);
            r->messages[n].msg_hdr.msg_iov = &r->iovecs[n];
            r->messages[n].msg_hdr.msg_iovlen = 1;
            n++;
        }
        if (n > 0) {
            int got = recvmmsg(r->socket, r->messages, (unsigned) n, MSG_DONTWAIT, NULL);
            if (got > 0) {
                r->received += got;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                perror("udp_exchange_floor: recvmmsg");
                exit(1);
            }
        }
    }
    size_t count = bytes / sizeof(float);
    for (size_t i = 0; i < count; i++) {
        result[i] += input[i];
    }
}

int main(int argc, char **argv) {
    int iters = 100;
    int warmup = 20;
    int rounds = 3;
    size_t sizes[32];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        int taken = parse_floor_option("udp_exchange_floor", argc, argv, &a, &iters, &warmup, &rounds, NULL);
        if (taken < 0) {
            return 2;
        }
        if (taken == 0) {
            size_t s = parse_size(argv[a]);
            if (s == 0 || s % 4 != 0 || s > ((size_t) 1 << 30) || nsizes == 32) {
                fprintf(stderr, "usage: udp_exchange_floor [-n ITERS] [-w WARMUP] [-r ROUNDS] size... "
                        "(bytes per rank, multiples of 4, at most 1G, at most 32 sizes; bad: '%s')\n", argv[a]);
                return 2;
            }
            sizes[nsizes++] = s;
        }
    }
    if (nsizes == 0) {
        sizes[nsizes++] = (size_t) 1 << 20;
    }
    struct sockaddr_in first;
    struct sockaddr_in second;
    int first_socket = bound_loopback_socket(&first, SOCKET_BUFFER_BYTES, "udp_exchange_floor");
    int second_socket = bound_loopback_socket(&second, SOCKET_BUFFER_BYTES, "udp_exchange_floor");
    SpinBarrier *barrier = floor_shared_zeroed(sizeof *barrier, "udp_exchange_floor");
    pid_t child = floor_fork("udp_exchange_floor");
    int rank = child == 0;
    Rank r;
    memset(&r, 0, sizeof r);
    r.socket = rank == 0 ? first_socket : second_socket;
    r.peer = rank == 0 ? second : first;
    int sense = 0;
    int status = 0;
    for (int k = 0; k < nsizes; k++) {
        size_t bytes = sizes[k];
        size_t count = bytes / sizeof(float);
        float *input = pages(bytes);
        float *result = pages(bytes);
        for (size_t i = 0; i < count; i++) {
            input[i] = (float) ((i + (size_t) rank * 7) % 1000);
        }
        double best = 1e30;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < warmup; i++) {
                all_reduce(&r, input, result, bytes);
            }
            spin_barrier(barrier, &sense);
            double start = seconds_now();
            for (int i = 0; i < iters; i++) {
                all_reduce(&r, input, result, bytes);
            }
            double mean = (seconds_now() - start) / iters;
            spin_barrier(barrier, &sense);
            if (mean < best) {
                best = mean;
            }
        }
        for (size_t i = 0; i < count; i++) {
            float expected = (float) (i % 1000) + (float) ((i + 7) % 1000);
            if (result[i] != expected) {
                fprintf(stderr, "udp_exchange_floor: rank %d, %zu B: element %zu is %g, not %g\n", rank, bytes, i,
                        (double) result[i], (double) expected);
                status = 1;
                break;
            }
        }
        if (rank == 0) {
            printf("udp exchange floor %zu B: %.1f us (busbw %.2f GB/s)\n", bytes, best * 1e6, bytes / best / 1e9);
            fflush(stdout);
        }
        munmap(input, bytes);
        munmap(result, bytes);
    }
    if (rank == 0) {
        int child_status = 0;
        waitpid(child, &child_status, 0);
        if (!WIFEXITED(child_status) || WEXITSTATUS(child_status) != 0) {
            status = 1;
        }
    }
    return status;
}
