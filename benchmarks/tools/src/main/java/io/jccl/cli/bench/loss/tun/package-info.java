/**
 * A real packet-level impairment link for kernel TCP and any other IP traffic: {@link
 * io.jccl.cli.bench.loss.tun.TunLossLink} joins two network namespaces through TUN devices and a relay in this JVM
 * that drops a seeded random share of the packets. The TUN calls are hand-written FFM bindings to libc
 * ({@code Tun}); {@code ip} (iproute2) does the namespace and address work.
 */
package io.jccl.cli.bench.loss.tun;
