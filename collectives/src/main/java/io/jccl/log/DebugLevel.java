package io.jccl.log;

/**
 * How much JCCL logs, from {@code JCCL_DEBUG}, as NCCL's {@code NCCL_DEBUG}. Each level includes those before it;
 * warnings and errors are always logged.
 */
public enum DebugLevel {
    /** Warnings and errors only (the default). */
    WARN,
    /** As WARN, plus the JCCL version line once per JVM. */
    VERSION,
    /** As VERSION, plus SLF4J INFO of the selected subsystems: what communicator creation chose. */
    INFO,
    /** As INFO, plus SLF4J DEBUG of the selected subsystems. */
    DEBUG,
    /** Everything, including a line per operation (COLL, P2P). */
    TRACE
}
