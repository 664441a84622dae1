/**
 * The communicator: argument checks, the per-communicator operation queue and executor thread, plan
 * execution over transport connections, the control plane that spreads errors, and communicator creation.
 */
package io.jccl.core;
