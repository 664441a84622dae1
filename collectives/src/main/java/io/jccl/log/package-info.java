/**
 * JCCL's logging gate, NCCL's {@code NCCL_DEBUG} / {@code NCCL_DEBUG_SUBSYS} for SLF4J. Every JCCL class gets its
 * logger from {@link io.jccl.log.JcclLog#logger(Subsystem, Class)}: an SLF4J {@code Logger} that lets a message
 * below WARN through only when {@code JCCL_DEBUG} asks for its level and {@code JCCL_DEBUG_SUBSYS} for its
 * {@link io.jccl.log.Subsystem}, and then hands it to the application's SLF4J backend, whose own configuration
 * still applies. Warnings and errors always reach the backend. See docs/logging.md.
 */
package io.jccl.log;
