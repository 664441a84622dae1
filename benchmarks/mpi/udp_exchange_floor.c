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
 *
 * With -c ("checked") every datagram also carries what issue 16's design asks of each packet and nothing more: a
 * 64-byte header (where the payload goes) and a CRC32C over header and payload (crc32c.h: folding with 512-bit
 * VPCLMULQDQ and crc32 streams beside it where the CPU has them, at least as fast as the JDK's intrinsic; else the
 * crc32 instruction on three streams). The sender gathers header, payload (straight from the input) and CRC into
 * one datagram; the receiver reads each datagram into a staging slot (it cannot know where a datagram belongs before
 * it reads the header), checks the CRC, and writes the payload's sum with its own input straight to the payload's
 * place in the result — the placement and the reduction in one pass. The floor under any design that checks every
 * byte on both sides, with no protocol at all.
 * Out of place (input and result distinct) only, as compare.sh's first column. The processes are not pinned.
 *
 * Build: cc -O3 -march=native -std=c11 -Wall -Wextra -o benchmarks/target/mpi/udp_exchange_floor \
 *        benchmarks/mpi/udp_exchange_floor.c
 * Usage: udp_exchange_floor [-c] [-n ITERS] [-w WARMUP] [-r ROUNDS] size...   (bytes per rank, multiples of 4, K/M)
 * Output: per size one line: "udp exchange floor SIZE B: X us (busbw Y GB/s)" ("udp checked floor" with -c), the
 * mean of the fastest round.
 * Exit status 2 for a bad argument, 1 when a socket cannot be set up, a datagram fails its check or a result is
 * wrong.
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

#include "crc32c.h"
#include "floor.h"
#include "udp_loopback.h"

#define DATAGRAM_BYTES 65000
#define BATCH 16
#define WINDOW 16
#define SOCKET_BUFFER_BYTES (4 << 20)
#define HEADER_BYTES 64
#define CRC_BYTES 4
/* One staging slot of the checked exchange: header, payload and CRC, rounded up to whole cache lines. */
#define SLOT_BYTES ((HEADER_BYTES + DATAGRAM_BYTES + CRC_BYTES + 63) / 64 * 64)


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
    struct iovec iovecs[BATCH * 3];
    /* The checked exchange's headers and CRCs as sent, and its receive slots. */
    unsigned char headers[BATCH][HEADER_BYTES];
    uint32_t crcs[BATCH];
    unsigned char *staging;
} Rank;

/* The checked exchange's header: the datagram's index, its payload's offset and length; the rest zero. */
static void fill_header(unsigned char *header, long long index, size_t offset, size_t length) {
    uint64_t fields[3] = { (uint64_t) index, (uint64_t) offset, (uint64_t) length };
    memset(header, 0, HEADER_BYTES);
    memcpy(header, fields, sizeof fields);
}

/*
 * Checks one received datagram of the checked exchange (`length` bytes in `slot`) and writes its payload plus the
 * same span of `input` to the result. Exits with status 1 when its length, header or CRC is wrong.
 */
static void place_checked(const unsigned char *slot, size_t length, const float *input, float *result, size_t bytes) {
    if (length < HEADER_BYTES + CRC_BYTES) {
        fprintf(stderr, "udp_exchange_floor: a datagram of %zu bytes is shorter than header and CRC\n", length);
        exit(1);
    }
    uint64_t fields[3];
    memcpy(fields, slot, sizeof fields);
    size_t payload = length - HEADER_BYTES - CRC_BYTES;
    uint32_t crc;
    memcpy(&crc, slot + HEADER_BYTES + payload, CRC_BYTES);
    if (fields[2] != payload || fields[1] > bytes || payload > bytes - fields[1]
            || fields[1] % sizeof(float) != 0 || payload % sizeof(float) != 0
            || crc32c_update(0, slot, HEADER_BYTES + payload) != crc) {
        fprintf(stderr, "udp_exchange_floor: a datagram of %zu bytes failed its check\n", length);
        exit(1);
    }
    const float *from = (const float *) (slot + HEADER_BYTES);
    size_t first = fields[1] / sizeof(float);
    size_t count = payload / sizeof(float);
    for (size_t i = 0; i < count; i++) {
        result[first + i] = from[i] + input[first + i];
    }
}

/*
 * One all-reduce of `bytes`: the input out, the peer's input into result, then result += input. Checked: each
 * datagram with header and CRC, each received one checked and summed into place (place_checked).
 */
static void all_reduce(Rank *r, const float *input, float *result, size_t bytes, int checked) {
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
            size_t length = bytes - offset < DATAGRAM_BYTES ? bytes - offset : DATAGRAM_BYTES;
            memset(&r->messages[n].msg_hdr, 0, sizeof r->messages[n].msg_hdr);
            r->messages[n].msg_hdr.msg_name = &r->peer;
            r->messages[n].msg_hdr.msg_namelen = sizeof r->peer;
            if (checked) {
                struct iovec *v = &r->iovecs[n * 3];
                fill_header(r->headers[n], j, offset, length);
                r->crcs[n] = crc32c_update(crc32c_update(0, r->headers[n], HEADER_BYTES), (const char *) input + offset,
                        length);
                v[0].iov_base = r->headers[n];
                v[0].iov_len = HEADER_BYTES;
                v[1].iov_base = (char *) input + offset;
                v[1].iov_len = length;
                v[2].iov_base = &r->crcs[n];
                v[2].iov_len = CRC_BYTES;
                r->messages[n].msg_hdr.msg_iov = v;
                r->messages[n].msg_hdr.msg_iovlen = 3;
            } else {
                r->iovecs[n].iov_base = (char *) input + offset;
                r->iovecs[n].iov_len = length;
                r->messages[n].msg_hdr.msg_iov = &r->iovecs[n];
                r->messages[n].msg_hdr.msg_iovlen = 1;
            }
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
            if (checked) {
                r->iovecs[n].iov_base = r->staging + (size_t) n * SLOT_BYTES;
                r->iovecs[n].iov_len = SLOT_BYTES;
            } else {
                r->iovecs[n].iov_base = (char *) result + offset;
                r->iovecs[n].iov_len = bytes - offset < DATAGRAM_BYTES ? bytes - offset : DATAGRAM_BYTES;
            }
            memset(&r->messages[n].msg_hdr, 0, sizeof r->messages[n].msg_hdr);
            r->messages[n].msg_hdr.msg_iov = &r->iovecs[n];
            r->messages[n].msg_hdr.msg_iovlen = 1;
            n++;
        }
        if (n > 0) {
            int got = recvmmsg(r->socket, r->messages, (unsigned) n, MSG_DONTWAIT, NULL);
            if (got > 0) {
                r->received += got;
                for (int k = 0; checked && k < got; k++) {
                    place_checked(r->staging + (size_t) k * SLOT_BYTES, r->messages[k].msg_len, input, result,
                            bytes);
                }
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                perror("udp_exchange_floor: recvmmsg");
                exit(1);
            }
        }
    }
    if (!checked) {
        size_t count = bytes / sizeof(float);
        for (size_t i = 0; i < count; i++) {
            result[i] += input[i];
        }
    }
}

int main(int argc, char **argv) {
    int iters = 100;
    int warmup = 20;
    int rounds = 3;
    int checked = 0;
    size_t sizes[32];
    int nsizes = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-c") == 0) {
            checked = 1;
            continue;
        }
        int taken = parse_floor_option("udp_exchange_floor", argc, argv, &a, &iters, &warmup, &rounds, NULL);
        if (taken < 0) {
            return 2;
        }
        if (taken == 0) {
            size_t s = parse_size(argv[a]);
            if (s == 0 || s % 4 != 0 || s > ((size_t) 1 << 30) || nsizes == 32) {
                fprintf(stderr, "usage: udp_exchange_floor [-c] [-n ITERS] [-w WARMUP] [-r ROUNDS] size... "
                        "(bytes per rank, multiples of 4, at most 1G, at most 32 sizes; bad: '%s')\n", argv[a]);
                return 2;
            }
            sizes[nsizes++] = s;
        }
    }
    if (nsizes == 0) {
        sizes[nsizes++] = (size_t) 1 << 20;
    }
    static const char digits[] = "123456789";
    if (crc32c_update(0, digits, 9) != 0xE3069283u) {
        fprintf(stderr, "udp_exchange_floor: CRC32C of \"123456789\" is wrong\n");
        return 1;
    }
    static unsigned char sample[20000];
    for (size_t n = 0; n < sizeof sample; n += 997) {   /* crc32c_update against the definition */
        for (size_t i = 0; i < n; i++) {
            sample[i] = (unsigned char) (i * 131 + n);
        }
        if (crc32c_update(0, sample, n) != crc32c_reference(sample, n)
                || crc32c_update(crc32c_update(0, sample, n / 2), sample + n / 2, n - n / 2)
                        != crc32c_reference(sample, n)) {
            fprintf(stderr, "udp_exchange_floor: CRC32C of %zu bytes is wrong\n", n);
            return 1;
        }
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
    r.staging = pages((size_t) BATCH * SLOT_BYTES);
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
                all_reduce(&r, input, result, bytes, checked);
            }
            spin_barrier(barrier, &sense);
            double start = seconds_now();
            for (int i = 0; i < iters; i++) {
                all_reduce(&r, input, result, bytes, checked);
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
            printf("udp %s floor %zu B: %.1f us (busbw %.2f GB/s)\n", checked ? "checked" : "exchange", bytes,
                    best * 1e6, bytes / best / 1e9);
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
