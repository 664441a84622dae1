/**
 * MetaRoCE: the RDMA transport for lossy Ethernet. This module will hold the sans-IO protocol core and its
 * drivers; until then the collectives run over the {@code local} and {@code tcp} transports.
 */
package io.jccl.metaroce;
