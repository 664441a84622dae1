/* The C floors' CRC32C is the transport's own (transport-metaroce/src/main/c/crc32c.h, which the build compiles into
 * the native CRC32C MetaRoCE checksums with): a floor checksums exactly as fast as JCCL does. */
#include "../../transport-metaroce/src/main/c/crc32c.h"
