/*
 * libjcclcrc32c: the CRC32C of MetaRoCE packets (io.jccl.metaroce.protocol.wire.Crc32c, strategy NATIVE), built by
 * the transport's Maven build with the C compiler into the jar and called through the Foreign Function & Memory API.
 * crc32c.h holds the method (VPCLMULQDQ folding with crc32 streams beside where the CPU has AVX-512, else the crc32
 * instruction): 72-84 GB/s here against the JDK intrinsic's 54-56 (docs/performance.md).
 *
 * jccl_crc32c_usable() is compiled for any x86-64 and says whether this CPU runs the rest, which is compiled for
 * SSE4.2 (the crc32 instruction); the folding path carries its own target attribute and is picked at run time.
 */
#include <stddef.h>
#include <stdint.h>

#define JCCL_EXPORT __attribute__((visibility("default")))   /* the build hides every other symbol */

/* Returns 1 where this CPU has SSE4.2 (the crc32 instruction), else 0: call jccl_crc32c_update only then. */
JCCL_EXPORT int jccl_crc32c_usable(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

#pragma GCC push_options
#pragma GCC target("sse4.2")
#include "crc32c.h"

/* Continues a CRC32C register over `bytes` bytes at `data`, as java.util.zip.CRC32C's updateDirectByteBuffer does:
 * start from 0xFFFFFFFF, and the CRC is the final register inverted. */
JCCL_EXPORT uint32_t jccl_crc32c_update(uint32_t state, const void *data, size_t bytes) {
    return ~crc32c_update(~state, data, bytes);
}
#pragma GCC pop_options
