/*
 * udp_round_trip: what one UDP round trip on loopback costs two processes that busy-poll, with nothing else in the
 * way: the floor under any protocol built on UDP here (MetaRoCE's 8-byte all-reduce needs at least one one-way trip
 * per step; Open MPI over tcp needs the same over TCP). Two processes (a fork), each with one socket on 127.0.0.1,
 * pass an 8-byte datagram back and forth: sendto, then non-blocking recv in a loop until it arrives.
 *
 * Usage: udp_round_trip [-n ROUND_TRIPS] [-w WARMUP] [-r REPETITIONS]   (defaults 50000, 5000, 3)
 *   Output: per repetition one line "udp round trip: X.XX us".
 * Exit status 2 for a bad argument, 1 when a socket cannot be set up.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "udp_loopback.h"

/* args.h also offers sizes; this benchmark has none. */
static size_t (*const unused_parse_size)(const char *) __attribute__((unused)) = parse_size;

static double micros_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}


static void receive_one(int s, char *buffer) {
    while (recv(s, buffer, 64, MSG_DONTWAIT) < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            perror("udp_round_trip: recv");
            exit(1);
        }
    }
}

int main(int argc, char **argv) {
    int n = 50000;
    int warmup = 5000;
    int repetitions = 3;
    for (int i = 1; i < argc; i++) {
        int *target = strcmp(argv[i], "-n") == 0 ? &n : strcmp(argv[i], "-w") == 0 ? &warmup
                : strcmp(argv[i], "-r") == 0 ? &repetitions : NULL;
        if (target == NULL || i + 1 == argc || (*target = parse_count(argv[++i], target == &warmup ? 0 : 1)) < 0) {
            fprintf(stderr, "usage: udp_round_trip [-n ROUND_TRIPS] [-w WARMUP] [-r REPETITIONS]\n");
            return 2;
        }
    }
    struct sockaddr_in first;
    struct sockaddr_in second;
    int first_socket = bound_loopback_socket(&first, 0, "udp_round_trip");
    int second_socket = bound_loopback_socket(&second, 0, "udp_round_trip");
    pid_t child = fork();
    if (child < 0) {
        perror("udp_round_trip: fork");
        return 1;
    }
    int initiator = child != 0;
    int s = initiator ? first_socket : second_socket;
    struct sockaddr_in *peer = initiator ? &second : &first;
    char buffer[64] = {0};
    for (int r = -1; r < repetitions; r++) {
        int count = r < 0 ? warmup : n;
        double start = micros_now();
        for (int i = 0; i < count; i++) {
            if (initiator) {
                sendto(s, buffer, 8, 0, (struct sockaddr *) peer, sizeof *peer);
                receive_one(s, buffer);
            } else {
                receive_one(s, buffer);
                sendto(s, buffer, 8, 0, (struct sockaddr *) peer, sizeof *peer);
            }
        }
        if (initiator && r >= 0) {
            printf("udp round trip: %.2f us\n", (micros_now() - start) / count);
        }
    }
    if (initiator) {
        int status = 0;
        waitpid(child, &status, 0);
    }
    return 0;
}
