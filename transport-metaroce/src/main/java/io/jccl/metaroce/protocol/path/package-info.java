/**
 * Logical paths: on the sending side a PSN space with at most 256 packets outstanding, the RTT estimate and
 * retransmission timeout, the ECN-driven window and the health state; on the receiving side the SACK window.
 */
package io.jccl.metaroce.protocol.path;
