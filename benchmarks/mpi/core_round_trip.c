/*
 * core_round_trip: how far apart the host puts this machine's first two CPUs right now. Two threads, each pinned to
 * one of the first two CPUs this process may run on, pass a cache line back and forth; the time of a round trip is
 * what every hand-over between two rank processes on those CPUs pays (a flag, a ring record, each line of a copy).
 *
 * Why it exists: on the 2-vCPU VMs this project is measured on, the round trip is bimodal and flips every few
 * seconds to minutes: about 70 ns (the hypervisor runs both vCPUs on cores sharing a last-level cache) or about 340 ns
 * (it does not). A 1 MiB shm all-reduce takes 75-85 µs per call in the first placement and about 450 µs in the second,
 * in JCCL and in Open MPI alike, so a benchmark figure means something only with the placement it was taken in.
 *
 * Usage: core_round_trip [seconds]   (default 0.3; at most 60)
 *   Output: one line: the median round trip in ns over batches of 200 round trips, then "near" (under 150 ns), "far"
 *   (over 250 ns) or "between".
 * Usage: core_round_trip --watch MS
 *   Beside a benchmark, until SIGTERM or SIGINT: every MS milliseconds (1-10000) the partner is woken and 50 round
 *   trips are timed (after 10 that absorb the wake-up): about 20 µs of both CPUs per look, so a look every 20 ms
 *   takes 0.1% of them. Output at the end: a line "# near% between% far% median_ns looks", the share of looks in
 *   each placement and the median of their round trips, then one line per look, "time_ns round_trip_ns", the time
 *   on CLOCK_MONOTONIC (System.nanoTime() in a JVM on Linux) when the look was taken; benchmarks/mpi/placed.sh
 *   lays benchmark windows over these.
 * Exit status 2 when fewer than two CPUs are allowed or an argument is bad.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BATCH 200
#define MAX_BATCHES 1000000
#define WATCH_WARM 10
#define WATCH_TIMED 50
#define MAX_LOOKS 1000000
#define NEAR_NS 150.0
#define FAR_NS 250.0

static _Alignas(128) _Atomic long ball;
static _Atomic int done;
/* --watch: the partner sleeps on this word between looks; odd: a look is on. */
static _Alignas(128) _Atomic int look;
static volatile sig_atomic_t stop_watching;

static void on_signal(int signal) {
  (void) signal;
  stop_watching = 1;
}

static void futex_wait(_Atomic int *word, int value) {
  syscall(SYS_futex, (int *) word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word) {
  syscall(SYS_futex, (int *) word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static int partner_cpu;

/* Returns every odd value as the next even one, until told to stop. */
static void *partner(void *unused) {
  (void) unused;
  if (pin(partner_cpu) != 0) {
    atomic_store(&done, 2);
    return NULL;
  }
  long expect = 1;
  while (!atomic_load_explicit(&done, memory_order_relaxed)) {
    int l = atomic_load_explicit(&look, memory_order_acquire);
    if (l % 2 == 0) {  /* --watch between looks; never in the plain mode, whose look stays 1 */
      futex_wait(&look, l);
      continue;
    }
    if (atomic_load_explicit(&ball, memory_order_acquire) == expect) {
      atomic_store_explicit(&ball, expect + 1, memory_order_release);
      expect += 2;
    } else {
      __builtin_ia32_pause();
    }
  }
  return NULL;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static const char *placement(double ns) {
  return ns < NEAR_NS ? "near" : ns > FAR_NS ? "far" : "between";
}

/* The --watch loop (the partner is running): one look every period_ms until a signal. */
static int watch(int period_ms) {
  static double look_ns[MAX_LOOKS];
  static double look_at_ns[MAX_LOOKS];
  int looks = 0;
  long value = 0;
  struct timespec period = {period_ms / 1000, (long) (period_ms % 1000) * 1000000L};
  while (!stop_watching && looks < MAX_LOOKS) {
    nanosleep(&period, NULL);
    if (stop_watching) {
      break;
    }
    atomic_fetch_add_explicit(&look, 1, memory_order_release);  /* odd: on */
    futex_wake(&look);
    double start = 0;
    for (int i = 0; i < WATCH_WARM + WATCH_TIMED; i++) {
      if (i == WATCH_WARM) {
        start = now_ns();
      }
      atomic_store_explicit(&ball, value + 1, memory_order_release);
      while (atomic_load_explicit(&ball, memory_order_acquire) != value + 2) {
        if (atomic_load_explicit(&done, memory_order_relaxed) == 2) {
          return 2;
        }
        __builtin_ia32_pause();
      }
      value += 2;
    }
    double end = now_ns();
    look_at_ns[looks] = end;
    look_ns[looks++] = (end - start) / WATCH_TIMED;
    atomic_fetch_add_explicit(&look, 1, memory_order_release);  /* even: off */
  }
  if (looks == 0) {
    printf("# 0 0 0 0 0\n");
    return 0;
  }
  static double sorted[MAX_LOOKS];
  int near = 0, far = 0;
  for (int i = 0; i < looks; i++) {
    near += look_ns[i] < NEAR_NS;
    far += look_ns[i] > FAR_NS;
    sorted[i] = look_ns[i];
  }
  qsort(sorted, looks, sizeof sorted[0], compare);
  printf("# %.0f %.0f %.0f %.0f %d\n", 100.0 * near / looks, 100.0 * (looks - near - far) / looks,
         100.0 * far / looks, sorted[looks / 2], looks);
  for (int i = 0; i < looks; i++) {
    printf("%.0f %.0f\n", look_at_ns[i], look_ns[i]);
  }
  return 0;
}

int main(int argc, char **argv) {
  double seconds = 0.3;
  int watch_ms = 0;
  if (argc == 3 && strcmp(argv[1], "--watch") == 0) {
    if (sscanf(argv[2], "%d", &watch_ms) != 1 || watch_ms < 1 || watch_ms > 10000) {
      fprintf(stderr, "core_round_trip: --watch takes milliseconds from 1 to 10000, not '%s'\n", argv[2]);
      return 2;
    }
  } else if (argc > 2 || (argc == 2 && (sscanf(argv[1], "%lf", &seconds) != 1 || !(seconds > 0 && seconds <= 60)))) {
    fprintf(stderr, "usage: core_round_trip [seconds (0-60], default 0.3] | core_round_trip --watch MS\n");
    return 2;
  }
  atomic_store(&look, watch_ms > 0 ? 0 : 1);
  if (watch_ms > 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
  }
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) {
    fprintf(stderr, "core_round_trip: needs two CPUs to run on\n");
    return 2;
  }
  int cpus[2], found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; c++) {
    if (CPU_ISSET(c, &allowed)) {
      cpus[found++] = c;
    }
  }
  partner_cpu = cpus[1];
  if (pin(cpus[0]) != 0) {
    fprintf(stderr, "core_round_trip: cannot pin to CPU %d\n", cpus[0]);
    return 2;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, partner, NULL) != 0) {
    fprintf(stderr, "core_round_trip: cannot start a thread\n");
    return 2;
  }
  if (watch_ms > 0) {
    int status = watch(watch_ms);
    if (status != 0) {
      fprintf(stderr, "core_round_trip: cannot pin to CPU %d\n", cpus[1]);
    }
    atomic_store(&done, atomic_load(&done) == 2 ? 2 : 1);
    atomic_fetch_add(&look, 1);
    futex_wake(&look);
    pthread_join(thread, NULL);
    return status;
  }
  static double batch_ns[MAX_BATCHES];
  int batches = 0;
  long value = 0;
  double end = now_ns() + seconds * 1e9;
  while (batches < MAX_BATCHES && atomic_load(&done) == 0) {
    double start = now_ns();
    for (int i = 0; i < BATCH; i++) {
      atomic_store_explicit(&ball, value + 1, memory_order_release);
      while (atomic_load_explicit(&ball, memory_order_acquire) != value + 2) {
        if (atomic_load_explicit(&done, memory_order_relaxed)) {
          break;
        }
        __builtin_ia32_pause();
      }
      value += 2;
    }
    double stop = now_ns();
    batch_ns[batches++] = (stop - start) / BATCH;
    if (stop >= end) {
      break;
    }
  }
  int failed = atomic_load(&done) == 2;
  atomic_store(&done, 1);
  pthread_join(thread, NULL);
  if (failed) {
    fprintf(stderr, "core_round_trip: cannot pin to CPU %d\n", cpus[1]);
    return 2;
  }
  qsort(batch_ns, batches, sizeof batch_ns[0], compare);
  double median = batch_ns[batches / 2];
  printf("%.0f %s\n", median, placement(median));
  return 0;
}
