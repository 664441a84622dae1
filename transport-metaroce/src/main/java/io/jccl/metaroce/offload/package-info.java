/**
 * The NIC offload seam of the {@code metaroce} transport: an {@link io.jccl.metaroce.offload.OffloadProvider} (found
 * with {@link java.util.ServiceLoader}) probes the RDMA devices {@link io.jccl.metaroce.verbs} discovered and, when it
 * accepts, opens the transport's {@link io.jccl.metaroce.offload.MetaRoceDataPath}s in place of the software UDP
 * driver. {@link io.jccl.metaroce.offload.OffloadSelector} applies {@code JCCL_METAROCE_OFFLOAD} and logs the one
 * decision line. JCCL ships no provider; {@code docs/nic.md} says what one must do.
 */
package io.jccl.metaroce.offload;
