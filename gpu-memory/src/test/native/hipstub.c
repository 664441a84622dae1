/*
 * hipstub: a stand-in for libamdhip64 for tests on machines without an AMD GPU.
 *
 * It exports the HIP runtime functions JCCL binds (io.jccl.memory.hip.HipRuntime), with the same names, C
 * signatures and ABI as ROCm's hip_runtime_api.h (hipError_t and enums are int, size_t is 64-bit, handles are
 * pointers), so the Java FFM bindings run unchanged against it. "Device" memory is host memory, but it is kept
 * unlike the data it holds: every byte is stored XOR SCRAMBLE_BYTE, so code that reads a device pointer directly
 * instead of copying through hipMemcpy sees garbage and tests fail. Copies check that device ranges lie inside
 * live allocations and that host pointers are not device pointers.
 *
 * Behaviour, chosen to make tests meaningful rather than to copy any driver bit for bit:
 *   - allocations, pinned host ranges, streams and events are tracked; freeing or unregistering something
 *     unknown returns an error code;
 *   - asynchronous copies on a stream are only queued; they run at hipStreamSynchronize, hipEventSynchronize or
 *     hipStreamDestroy (hipStreamQuery / hipEventQuery answer hipErrorNotReady until then), so code that forgets
 *     to synchronize reads stale data. HIPSTUB_ASYNC=immediate runs them at once instead;
 *   - HIPSTUB_DEVICES=n (default 1) devices; 0 makes hipGetDeviceCount fail with hipErrorNoDevice;
 *   - HIPSTUB_MEMORY_BYTES caps live device memory per device (default 1 GiB): beyond it hipMalloc answers
 *     hipErrorOutOfMemory;
 *   - HIPSTUB_FAIL="hipMalloc=2,hipMemcpy.DeviceToHost=700" makes functions fail with the given code; the pseudo
 *     names hipMemcpy.HostToDevice / .DeviceToHost / .DeviceToDevice fail copies of one direction only (also for
 *     hipMemcpyAsync);
 *   - test-only functions hipstub* (below) change those settings at run time and report counters.
 *
 * The error codes returned for bad arguments are plausible HIP codes, not a promise that ROCm returns the same.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int hipError_t;
typedef int hipMemcpyKind;
typedef void *hipStream_t;
typedef void *hipEvent_t;
typedef void *hipDeviceptr_t;
typedef int hipDevice_t;

#define HIP_IPC_HANDLE_SIZE 64
typedef struct {
    char reserved[HIP_IPC_HANDLE_SIZE];
} hipIpcMemHandle_t;

/*
 * Every code the stub returns but hipErrorUnknown, as ROCm numbers it, with its name and description: the one
 * list that the enum below and error_names (hipGetErrorName, hipGetErrorString) are both made from.
 */
#define HIP_ERRORS(X)                                                                                            \
    X(hipSuccess, 0, "no error")                                                                                 \
    X(hipErrorInvalidValue, 1, "invalid argument")                                                               \
    X(hipErrorOutOfMemory, 2, "out of memory")                                                                   \
    X(hipErrorInvalidDevicePointer, 17, "invalid device pointer")                                                \
    X(hipErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")                                   \
    X(hipErrorNoDevice, 100, "no ROCm-capable device is detected")                                               \
    X(hipErrorInvalidDevice, 101, "invalid device ordinal")                                                      \
    X(hipErrorInvalidHandle, 400, "invalid resource handle")                                                     \
    X(hipErrorNotReady, 600, "device not ready")                                                                 \
    X(hipErrorIllegalAddress, 700, "an illegal memory access was encountered")                                   \
    X(hipErrorHostMemoryAlreadyRegistered, 712, "part or all of the requested memory range is already mapped")  \
    X(hipErrorHostMemoryNotRegistered, 713, "pointer does not correspond to a registered memory region")        \
    X(hipErrorNotSupported, 801, "operation not supported")

enum {
#define HIP_ERROR_CODE(name, code, description) name = code,
    HIP_ERRORS(HIP_ERROR_CODE)
#undef HIP_ERROR_CODE
    hipErrorUnknown = 999
};

enum { hipMemcpyHostToHost = 0, hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2,
       hipMemcpyDeviceToDevice = 3, hipMemcpyDefault = 4 };

enum { hipMemRangeHandleTypeDmaBufFd = 1 };

#define SCRAMBLE_BYTE 0x5A
#define PAGE_BYTES 4096
#define MAX_DEVICES 16
#define MAX_RULES 32

#define EXPORT __attribute__((visibility("default")))

/* ---- state: one lock for everything (tests, not speed) ---- */

enum region_kind { REGION_DEVICE = 0, REGION_REGISTERED = 1 };

struct region {
    uintptr_t base;
    size_t size;    /* bytes asked for */
    size_t mapped;  /* size rounded up to pages: what exists (hipMalloc's granularity) */
    int device;
    int kind;
    struct region *next;
};

struct op {
    int kind;
    uintptr_t dst, src;
    size_t bytes;
};

struct stream {
    uint32_t magic;
    int device;
    struct op *ops;
    size_t count, capacity;
    uint64_t enqueued, completed;
    hipError_t error; /* sticky: the first failed queued copy */
    struct stream *next;
};

struct event {
    uint32_t magic;
    struct stream *stream;
    uint64_t seq;
    struct event *next;
};

struct rule {
    char name[64];
    hipError_t error;
    long after; /* calls that still succeed */
    long times; /* failures left; negative: forever */
};

struct counter {
    const char *name;
    long calls;
};

#define STREAM_MAGIC 0x57AE4D00u
#define EVENT_MAGIC 0xE7E47000u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct region *regions;
static struct stream *streams;
static struct event *events;
static struct rule rules[MAX_RULES];
static int device_count = 1;
static size_t memory_bytes = (size_t)1 << 30;
static size_t used_bytes[MAX_DEVICES];
static int async_immediate;
static __thread int current_device;

static struct counter counters[] = {
    {"hipGetDeviceCount", 0}, {"hipSetDevice", 0}, {"hipGetDevice", 0}, {"hipMalloc", 0}, {"hipFree", 0},
    {"hipMemcpy", 0}, {"hipMemcpyAsync", 0}, {"hipHostRegister", 0}, {"hipHostUnregister", 0},
    {"hipIpcGetMemHandle", 0}, {"hipMemGetHandleForAddressRange", 0}, {"hipStreamCreate", 0},
    {"hipStreamDestroy", 0}, {"hipStreamSynchronize", 0}, {"hipStreamQuery", 0}, {"hipEventCreate", 0},
    {"hipEventRecord", 0}, {"hipEventQuery", 0}, {"hipEventSynchronize", 0}, {"hipEventDestroy", 0},
    {"hipDeviceGetName", 0}, {"hipDeviceTotalMem", 0}, {"hipRuntimeGetVersion", 0},
};
#define COUNTERS (sizeof(counters) / sizeof(counters[0]))

static void add_rule(const char *name, hipError_t error, long after, long times) {
    int slot = -1;
    for (int i = 0; i < MAX_RULES && slot < 0; i++) {
        if (strcmp(rules[i].name, name) == 0) {
            slot = i;
        }
    }
    if (error == hipSuccess) {
        if (slot >= 0) {
            memset(&rules[slot], 0, sizeof(rules[slot]));
        }
        return;
    }
    for (int i = 0; i < MAX_RULES && slot < 0; i++) {
        if (rules[i].name[0] == 0) {
            slot = i;
        }
    }
    if (slot < 0) {
        return; /* table full: tests use a handful */
    }
    snprintf(rules[slot].name, sizeof(rules[slot].name), "%s", name);
    rules[slot].error = error;
    rules[slot].after = after;
    rules[slot].times = times;
}

/* HIPSTUB_FAIL=name=code[,name=code...]; read once when the library is loaded. */
__attribute__((constructor)) static void configure(void) {
    const char *v = getenv("HIPSTUB_DEVICES");
    if (v != NULL && *v != 0) {
        int n = atoi(v);
        device_count = n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : n;
    }
    v = getenv("HIPSTUB_MEMORY_BYTES");
    if (v != NULL && *v != 0) {
        memory_bytes = (size_t)strtoull(v, NULL, 10);
    }
    v = getenv("HIPSTUB_ASYNC");
    async_immediate = v != NULL && strcmp(v, "immediate") == 0;
    v = getenv("HIPSTUB_FAIL");
    if (v != NULL) {
        char buf[1024];
        snprintf(buf, sizeof(buf), "%s", v);
        char *save = NULL;
        for (char *item = strtok_r(buf, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(item, '=');
            if (eq != NULL) {
                *eq = 0;
                add_rule(item, atoi(eq + 1), 0, -1);
            }
        }
    }
}

/* Counts a call and answers an injected failure for it, if one is due. Caller holds the lock. */
static hipError_t injected(const char *name) {
    for (size_t i = 0; i < COUNTERS; i++) {
        if (strcmp(counters[i].name, name) == 0) {
            counters[i].calls++;
        }
    }
    for (int i = 0; i < MAX_RULES; i++) {
        if (rules[i].name[0] != 0 && strcmp(rules[i].name, name) == 0) {
            if (rules[i].after > 0) {
                rules[i].after--;
                return hipSuccess;
            }
            if (rules[i].times == 0) {
                return hipSuccess;
            }
            if (rules[i].times > 0) {
                rules[i].times--;
            }
            return rules[i].error;
        }
    }
    return hipSuccess;
}

/* Lock held for the whole call: enter() takes it and answers an injected failure (then unlocked). */
#define ENTER(name)                                     \
    pthread_mutex_lock(&lock);                          \
    do {                                                \
        hipError_t injected_error = injected(name);     \
        if (injected_error != hipSuccess) {             \
            pthread_mutex_unlock(&lock);                \
            return injected_error;                      \
        }                                               \
    } while (0)
#define RETURN(e)                   \
    do {                            \
        hipError_t result_ = (e);   \
        pthread_mutex_unlock(&lock); \
        return result_;             \
    } while (0)

/* RETURN(e) unless e is hipSuccess. */
#define CHECK(e)                        \
    do {                                \
        hipError_t checked_ = (e);      \
        if (checked_ != hipSuccess) {   \
            RETURN(checked_);           \
        }                               \
    } while (0)

/* The node of a singly linked list (a struct with a next field) that is `node`, or NULL. */
#define LIST_FIND(head, node)                                                    \
    __extension__({                                                               \
        __typeof__(head) found_ = (head);                                         \
        while (found_ != NULL && (const void *)found_ != (const void *)(node)) {  \
            found_ = found_->next;                                                \
        }                                                                         \
        found_;                                                                   \
    })

/* A new zeroed stream or event with its magic number, pushed onto its list; NULL when out of memory. */
#define LIST_PUSH_NEW(head, magic_number)                         \
    __extension__({                                               \
        __typeof__(head) new_ = calloc(1, sizeof(*new_));         \
        if (new_ != NULL) {                                       \
            new_->magic = (magic_number);                         \
            new_->next = (head);                                  \
            (head) = new_;                                        \
        }                                                         \
        new_;                                                     \
    })

/* Unlinks `node` from a singly linked list (a struct with a next field), if it is there. */
#define LIST_UNLINK(head, node)                                                            \
    do {                                                                                   \
        for (__typeof__(head) *link_ = &(head); *link_ != NULL; link_ = &(*link_)->next) { \
            if (*link_ == (node)) {                                                        \
                *link_ = (node)->next;                                                     \
                break;                                                                     \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* hipErrorInvalidValue for a NULL out-parameter, then hipErrorNoDevice when there are no devices. */
static hipError_t check_out_and_devices(const void *out) {
    return out == NULL ? hipErrorInvalidValue : device_count == 0 ? hipErrorNoDevice : hipSuccess;
}

/* hipErrorInvalidDevice unless device is one of the stub's. */
static hipError_t check_device(int device) {
    return device < 0 || device >= device_count ? hipErrorInvalidDevice : hipSuccess;
}

static size_t round_up(size_t n, size_t to) {
    return (n + to - 1) / to * to;
}

/* The live region of a kind that contains [p, p + n), or NULL. */
static struct region *containing(uintptr_t p, size_t n, int kind) {
    for (struct region *r = regions; r != NULL; r = r->next) {
        if (r->kind == kind && p >= r->base && p - r->base <= r->mapped && n <= r->mapped - (p - r->base)) {
            return r;
        }
    }
    return NULL;
}

/* Any live region of a kind that overlaps [p, p + n). */
static struct region *overlapping(uintptr_t p, size_t n, int kind) {
    for (struct region *r = regions; r != NULL; r = r->next) {
        if (r->kind == kind && p < r->base + r->mapped && r->base < p + n) {
            return r;
        }
    }
    return NULL;
}

static struct region *exact(uintptr_t p, int kind) {
    for (struct region *r = regions; r != NULL; r = r->next) {
        if (r->kind == kind && r->base == p) {
            return r;
        }
    }
    return NULL;
}

/* Links a new live region in; NULL when out of memory. Lock held. */
static struct region *add_region(uintptr_t base, size_t size, size_t mapped, int device, int kind) {
    struct region *r = calloc(1, sizeof(*r));
    if (r != NULL) {
        *r = (struct region){base, size, mapped, device, kind, regions};
        regions = r;
    }
    return r;
}

static const char *kind_name(int kind) {
    switch (kind) {
    case hipMemcpyHostToDevice: return "hipMemcpy.HostToDevice";
    case hipMemcpyDeviceToHost: return "hipMemcpy.DeviceToHost";
    case hipMemcpyDeviceToDevice: return "hipMemcpy.DeviceToDevice";
    case hipMemcpyHostToHost: return "hipMemcpy.HostToHost";
    default: return "hipMemcpy.Default";
    }
}

/*
 * Checks one copy and resolves hipMemcpyDefault; lock held. Device sides must lie inside a live allocation, host
 * sides must not be device memory (that is what a wrong direction would look like).
 */
static hipError_t check_copy(int *kind, uintptr_t dst, uintptr_t src, size_t n) {
    if (n == 0) {
        return hipSuccess;
    }
    if (dst == 0 || src == 0) {
        return hipErrorInvalidValue;
    }
    if (*kind == hipMemcpyDefault) {
        int dd = containing(dst, n, REGION_DEVICE) != NULL;
        int sd = containing(src, n, REGION_DEVICE) != NULL;
        *kind = dd ? (sd ? hipMemcpyDeviceToDevice : hipMemcpyHostToDevice)
                   : (sd ? hipMemcpyDeviceToHost : hipMemcpyHostToHost);
    }
    int dst_device = *kind == hipMemcpyHostToDevice || *kind == hipMemcpyDeviceToDevice;
    int src_device = *kind == hipMemcpyDeviceToHost || *kind == hipMemcpyDeviceToDevice;
    if (*kind < hipMemcpyHostToHost || *kind > hipMemcpyDeviceToDevice) {
        return hipErrorInvalidMemcpyDirection;
    }
    if (dst_device ? containing(dst, n, REGION_DEVICE) == NULL : overlapping(dst, n, REGION_DEVICE) != NULL) {
        return hipErrorInvalidValue;
    }
    if (src_device ? containing(src, n, REGION_DEVICE) == NULL : overlapping(src, n, REGION_DEVICE) != NULL) {
        return hipErrorInvalidValue;
    }
    return hipSuccess;
}

/* Moves the bytes of a checked copy; device memory holds every byte XOR SCRAMBLE_BYTE. */
static void do_copy(int kind, uintptr_t dst, uintptr_t src, size_t n) {
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToHost) {
        /* 8 bytes at a time (memcpy keeps unaligned words legal; compilers make it plain loads and stores) */
        const uint64_t key = 0x0101010101010101ull * SCRAMBLE_BYTE;
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            w ^= key;
            memcpy(d + i, &w, 8);
        }
        for (; i < n; i++) {
            d[i] = s[i] ^ SCRAMBLE_BYTE;
        }
    } else {
        memmove(d, s, n);
    }
}

/* ---- devices ---- */

EXPORT hipError_t hipGetDeviceCount(int *count) {
    ENTER("hipGetDeviceCount");
    if (count == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    *count = device_count;
    RETURN(device_count == 0 ? hipErrorNoDevice : hipSuccess);
}

EXPORT hipError_t hipSetDevice(int device) {
    ENTER("hipSetDevice");
    CHECK(check_device(device));
    current_device = device;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipGetDevice(int *device) {
    ENTER("hipGetDevice");
    CHECK(check_out_and_devices(device));
    *device = current_device;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipDeviceGetName(char *name, int len, hipDevice_t device) {
    ENTER("hipDeviceGetName");
    if (name == NULL || len <= 0) {
        RETURN(hipErrorInvalidValue);
    }
    CHECK(check_device(device));
    snprintf(name, (size_t)len, "HIP stub device %d", device);
    RETURN(hipSuccess);
}

EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t device) {
    ENTER("hipDeviceTotalMem");
    if (bytes == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    CHECK(check_device(device));
    *bytes = memory_bytes;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipRuntimeGetVersion(int *version) {
    ENTER("hipRuntimeGetVersion");
    if (version == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    *version = 60300000; /* HIP_VERSION encoding: major * 10^7 + minor * 10^5 + patch */
    RETURN(hipSuccess);
}

/* ---- device memory ---- */

EXPORT hipError_t hipMalloc(void **ptr, size_t size) {
    ENTER("hipMalloc");
    CHECK(check_out_and_devices(ptr));
    if (size == 0) {
        *ptr = NULL;
        RETURN(hipSuccess);
    }
    size_t mapped = round_up(size, PAGE_BYTES);
    int dev = current_device;
    if (mapped > memory_bytes - used_bytes[dev]) {
        RETURN(hipErrorOutOfMemory);
    }
    void *p = aligned_alloc(PAGE_BYTES, mapped);
    if (p == NULL || add_region((uintptr_t)p, size, mapped, dev, REGION_DEVICE) == NULL) {
        free(p);
        RETURN(hipErrorOutOfMemory);
    }
    memset(p, 0xEE ^ SCRAMBLE_BYTE, mapped); /* reads as 0xEE: uninitialised memory is not zero */
    used_bytes[dev] += mapped;
    *ptr = p;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipFree(void *ptr) {
    ENTER("hipFree");
    if (ptr == NULL) {
        RETURN(hipSuccess);
    }
    struct region *r = exact((uintptr_t)ptr, REGION_DEVICE);
    if (r == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    LIST_UNLINK(regions, r);
    used_bytes[r->device] -= r->mapped;
    free((void *)r->base);
    free(r);
    RETURN(hipSuccess);
}

EXPORT hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind) {
    ENTER("hipMemcpy");
    hipError_t e = check_copy(&kind, (uintptr_t)dst, (uintptr_t)src, sizeBytes);
    if (e == hipSuccess && sizeBytes > 0) {
        e = injected(kind_name(kind));
    }
    pthread_mutex_unlock(&lock);
    /* The bytes move outside the lock, so ranks' copies overlap as on a GPU's copy engines; freeing memory while
     * a copy of it runs is the caller's race, as with HIP. */
    if (e == hipSuccess && sizeBytes > 0) {
        do_copy(kind, (uintptr_t)dst, (uintptr_t)src, sizeBytes);
    }
    return e;
}

/* ---- streams and events ---- */

/* The live stream a handle names (NULL for the null stream), or hipErrorInvalidHandle; lock held. */
static hipError_t find_stream(hipStream_t handle, struct stream **stream) {
    *stream = handle == NULL ? NULL : LIST_FIND(streams, handle);
    return handle != NULL && *stream == NULL ? hipErrorInvalidHandle : hipSuccess;
}

/* The live event a handle names, or hipErrorInvalidHandle (also for NULL); lock held. */
static hipError_t find_event(hipEvent_t handle, struct event **event) {
    *event = handle == NULL ? NULL : LIST_FIND(events, handle);
    return *event == NULL ? hipErrorInvalidHandle : hipSuccess;
}

/* Runs a stream's queued copies up to sequence number seq; lock held. */
static void run_until(struct stream *s, uint64_t seq) {
    while (s->completed < seq && s->completed < s->enqueued) {
        struct op *o = &s->ops[s->completed - (s->enqueued - s->count)];
        int kind = o->kind;
        hipError_t e = check_copy(&kind, o->dst, o->src, o->bytes);
        if (e == hipSuccess) {
            do_copy(kind, o->dst, o->src, o->bytes);
        } else if (s->error == hipSuccess) {
            s->error = hipErrorIllegalAddress; /* the memory went away while the copy was queued */
        }
        s->completed++;
    }
    if (s->completed == s->enqueued) {
        s->count = 0;
    }
}

EXPORT hipError_t hipStreamCreate(hipStream_t *stream) {
    ENTER("hipStreamCreate");
    CHECK(check_out_and_devices(stream));
    struct stream *s = LIST_PUSH_NEW(streams, STREAM_MAGIC);
    if (s == NULL) {
        RETURN(hipErrorOutOfMemory);
    }
    s->device = current_device;
    *stream = s;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind,
                                 hipStream_t stream) {
    ENTER("hipMemcpyAsync");
    struct stream *s;
    CHECK(find_stream(stream, &s));
    hipError_t e = check_copy(&kind, (uintptr_t)dst, (uintptr_t)src, sizeBytes);
    if (e == hipSuccess && sizeBytes > 0) {
        e = injected(kind_name(kind));
    }
    if (e != hipSuccess || sizeBytes == 0) {
        RETURN(e);
    }
    if (s == NULL || async_immediate) {
        /* the null stream, or asked to: at once */
        if (s != NULL) {
            run_until(s, s->enqueued);
        }
        do_copy(kind, (uintptr_t)dst, (uintptr_t)src, sizeBytes);
        RETURN(hipSuccess);
    }
    if (s->count == s->capacity) {
        size_t capacity = s->capacity == 0 ? 16 : s->capacity * 2;
        struct op *ops = realloc(s->ops, capacity * sizeof(*ops));
        if (ops == NULL) {
            RETURN(hipErrorOutOfMemory);
        }
        s->ops = ops;
        s->capacity = capacity;
    }
    s->ops[s->count++] = (struct op){kind, (uintptr_t)dst, (uintptr_t)src, sizeBytes};
    s->enqueued++;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipStreamSynchronize(hipStream_t stream) {
    ENTER("hipStreamSynchronize");
    struct stream *s;
    CHECK(find_stream(stream, &s));
    hipError_t e = hipSuccess; /* the null stream has nothing queued */
    if (s != NULL) {
        run_until(s, s->enqueued);
        e = s->error;
        s->error = hipSuccess;
    }
    RETURN(e);
}

EXPORT hipError_t hipStreamQuery(hipStream_t stream) {
    ENTER("hipStreamQuery");
    struct stream *s;
    CHECK(find_stream(stream, &s));
    RETURN(s != NULL && s->completed < s->enqueued ? hipErrorNotReady : hipSuccess);
}

EXPORT hipError_t hipStreamDestroy(hipStream_t stream) {
    ENTER("hipStreamDestroy");
    struct stream *s;
    CHECK(find_stream(stream, &s));
    if (s == NULL) {
        RETURN(hipErrorInvalidHandle); /* the null stream cannot be destroyed */
    }
    run_until(s, s->enqueued); /* HIP finishes the stream's work before releasing it */
    for (struct event *e = events; e != NULL; e = e->next) {
        if (e->stream == s) {
            e->stream = NULL;
        }
    }
    LIST_UNLINK(streams, s);
    s->magic = 0;
    free(s->ops);
    free(s);
    RETURN(hipSuccess);
}

EXPORT hipError_t hipEventCreate(hipEvent_t *event) {
    ENTER("hipEventCreate");
    if (event == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    struct event *e = LIST_PUSH_NEW(events, EVENT_MAGIC);
    if (e == NULL) {
        RETURN(hipErrorOutOfMemory);
    }
    *event = e;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
    ENTER("hipEventRecord");
    struct event *e;
    CHECK(find_event(event, &e));
    struct stream *s;
    CHECK(find_stream(stream, &s));
    e->stream = s;
    e->seq = s == NULL ? 0 : s->enqueued;
    RETURN(hipSuccess);
}

EXPORT hipError_t hipEventQuery(hipEvent_t event) {
    ENTER("hipEventQuery");
    struct event *e;
    CHECK(find_event(event, &e));
    RETURN(e->stream != NULL && e->stream->completed < e->seq ? hipErrorNotReady : hipSuccess);
}

EXPORT hipError_t hipEventSynchronize(hipEvent_t event) {
    ENTER("hipEventSynchronize");
    struct event *e;
    CHECK(find_event(event, &e));
    if (e->stream != NULL) {
        run_until(e->stream, e->seq);
    }
    RETURN(hipSuccess);
}

EXPORT hipError_t hipEventDestroy(hipEvent_t event) {
    ENTER("hipEventDestroy");
    struct event *e;
    CHECK(find_event(event, &e));
    LIST_UNLINK(events, e);
    e->magic = 0;
    free(e);
    RETURN(hipSuccess);
}

/* ---- pinned host memory ---- */

EXPORT hipError_t hipHostRegister(void *hostPtr, size_t sizeBytes, unsigned int flags) {
    ENTER("hipHostRegister");
    uintptr_t p = (uintptr_t)hostPtr;
    if (hostPtr == NULL || sizeBytes == 0 || (flags & ~0xFu) != 0) {
        RETURN(hipErrorInvalidValue);
    }
    if (overlapping(p, sizeBytes, REGION_DEVICE) != NULL) {
        RETURN(hipErrorInvalidValue);
    }
    if (overlapping(p, sizeBytes, REGION_REGISTERED) != NULL) {
        RETURN(hipErrorHostMemoryAlreadyRegistered);
    }
    RETURN(add_region(p, sizeBytes, sizeBytes, 0, REGION_REGISTERED) == NULL ? hipErrorOutOfMemory : hipSuccess);
}

EXPORT hipError_t hipHostUnregister(void *hostPtr) {
    ENTER("hipHostUnregister");
    struct region *r = hostPtr == NULL ? NULL : exact((uintptr_t)hostPtr, REGION_REGISTERED);
    if (r == NULL) {
        RETURN(hipErrorHostMemoryNotRegistered);
    }
    LIST_UNLINK(regions, r);
    free(r);
    RETURN(hipSuccess);
}

/* ---- sharing ---- */

EXPORT hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr) {
    ENTER("hipIpcGetMemHandle");
    if (handle == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    struct region *r = devPtr == NULL ? NULL : containing((uintptr_t)devPtr, 1, REGION_DEVICE);
    if (r == NULL) {
        RETURN(hipErrorInvalidDevicePointer);
    }
    /* Like HIP's: names the whole allocation, whatever pointer into it was given. */
    memset(handle, 0, sizeof(*handle));
    memcpy(handle->reserved, "HIPSTUB", 8);
    uint64_t base = r->base, size = r->size;
    uint32_t device = (uint32_t)r->device;
    memcpy(handle->reserved + 8, &base, 8);
    memcpy(handle->reserved + 16, &size, 8);
    memcpy(handle->reserved + 24, &device, 4);
    RETURN(hipSuccess);
}

EXPORT hipError_t hipMemGetHandleForAddressRange(void *handle, hipDeviceptr_t dptr, size_t size, int handleType,
                                                 unsigned long long flags) {
    ENTER("hipMemGetHandleForAddressRange");
    if (handle == NULL || size == 0 || flags != 0) {
        RETURN(hipErrorInvalidValue);
    }
    if (handleType != hipMemRangeHandleTypeDmaBufFd) {
        RETURN(hipErrorNotSupported);
    }
    if (dptr == NULL || containing((uintptr_t)dptr, size, REGION_DEVICE) == NULL) {
        RETURN(hipErrorInvalidValue);
    }
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC); /* a real descriptor the caller must close */
    if (fd < 0) {
        RETURN(hipErrorUnknown);
    }
    *(int *)handle = fd;
    RETURN(hipSuccess);
}

/* ---- errors ---- */

/* HIP_ERRORS, for looking up a code's name and description. */
static const struct {
    hipError_t code;
    const char *name;
    const char *string;
} error_names[] = {
#define HIP_ERROR_NAME(name, code, description) {name, #name, description},
    HIP_ERRORS(HIP_ERROR_NAME)
#undef HIP_ERROR_NAME
};
#define ERROR_NAMES (sizeof(error_names) / sizeof(error_names[0]))

/* The index of error in error_names, or ERROR_NAMES for a code it does not know (hipErrorUnknown). */
static size_t error_index(hipError_t error) {
    size_t i = 0;
    while (i < ERROR_NAMES && error_names[i].code != error) {
        i++;
    }
    return i;
}

EXPORT const char *hipGetErrorName(hipError_t error) {
    size_t i = error_index(error);
    return i < ERROR_NAMES ? error_names[i].name : "hipErrorUnknown";
}

EXPORT const char *hipGetErrorString(hipError_t error) {
    size_t i = error_index(error);
    return i < ERROR_NAMES ? error_names[i].string : "unknown error";
}

/* ---- test-only controls (not HIP) ---- */

/*
 * From the next call on, `function` (or a pseudo name such as hipMemcpy.DeviceToHost) succeeds `after` more
 * times, then fails with `error` `times` times (negative: forever). error 0 removes the rule; a NULL function
 * removes every rule.
 */
EXPORT void hipstubFail(const char *function, int error, long after, long times) {
    pthread_mutex_lock(&lock);
    if (function == NULL) {
        memset(rules, 0, sizeof(rules));
    } else {
        add_rule(function, error, after, times);
    }
    pthread_mutex_unlock(&lock);
}

EXPORT void hipstubSetDeviceCount(int n) {
    pthread_mutex_lock(&lock);
    device_count = n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : n;
    pthread_mutex_unlock(&lock);
}

EXPORT void hipstubSetAsyncImmediate(int immediate) {
    pthread_mutex_lock(&lock);
    async_immediate = immediate != 0;
    pthread_mutex_unlock(&lock);
}

/* Live device allocations (kind 0) or pinned host ranges (kind 1). */
EXPORT int hipstubLive(int kind) {
    pthread_mutex_lock(&lock);
    int n = 0;
    for (struct region *r = regions; r != NULL; r = r->next) {
        n += r->kind == kind;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

/* Live streams (kind 0) or events (kind 1). */
EXPORT int hipstubLiveHandles(int kind) {
    pthread_mutex_lock(&lock);
    int n = 0;
    if (kind == 0) {
        for (struct stream *s = streams; s != NULL; s = s->next) {
            n++;
        }
    } else {
        for (struct event *e = events; e != NULL; e = e->next) {
            n++;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}

/* How often a HIP function was called since the library was loaded; -1 for a name it does not count. */
EXPORT long hipstubCalls(const char *function) {
    pthread_mutex_lock(&lock);
    long n = -1;
    for (size_t i = 0; i < COUNTERS; i++) {
        if (function != NULL && strcmp(counters[i].name, function) == 0) {
            n = counters[i].calls;
        }
    }
    pthread_mutex_unlock(&lock);
    return n;
}
