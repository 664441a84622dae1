/**
 * Collective algorithms, written only on {@link io.jccl.prims.Prims}.
 *
 * <p>One rule keeps per-connection message matching consistent: each algorithm's steps follow a global
 * sequence of events that every rank walks in the same order, and every message is sent and received at
 * events in the same order on both ends of its connection (at most one message per connection per event).
 */
package io.jccl.algo;
