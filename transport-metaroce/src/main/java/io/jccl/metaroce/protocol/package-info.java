/**
 * The MetaRoCE protocol core, a pure state machine: drivers (the simulator, UDP sockets, a NIC) feed it
 * datagrams and timeouts with {@link io.jccl.metaroce.protocol.Engine} and collect what it wants sent. It
 * uses no sockets, threads, executors or system clock (a test enforces this); time and randomness come in
 * from the caller.
 */
package io.jccl.metaroce.protocol;
