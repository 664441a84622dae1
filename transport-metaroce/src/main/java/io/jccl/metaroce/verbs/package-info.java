/**
 * RDMA device discovery for MetaRoCE's NIC offload: hand-written Panama FFM bindings to libibverbs (rdma-core's
 * {@code libibverbs.so.1}; no JNI, no third-party code) that list the host's RDMA devices, open each to query its
 * vendor and part ids, firmware, limits and ports, and sysfs ({@code /sys/class/infiniband}) for the kernel driver
 * and PCI ids. {@link io.jccl.metaroce.verbs.RdmaDiscovery} is the entry point; a host without libibverbs, without
 * RDMA in its kernel or without devices gets an empty list and the reason, never an exception. AMD Pensando DSCs
 * ({@code ionic}) are recognised by PCI vendor {@code 0x1dd8}; see {@link io.jccl.metaroce.verbs.RdmaDeviceKind}.
 *
 * <p>What uses the devices is {@link io.jccl.metaroce.offload}.
 */
package io.jccl.metaroce.verbs;
