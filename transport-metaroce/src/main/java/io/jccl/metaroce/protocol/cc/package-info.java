/**
 * Congestion control: the receiver's max-min fair share of its inbound capacity among active senders (the rate
 * hint in every ACK) and the sender's pacing to it. Per-path ECN windows live with the paths.
 */
package io.jccl.metaroce.protocol.cc;
