package io.jccl.plan;

/** Which memory a step refers to; bound to real segments when the plan runs. */
public enum Buf {
    /** The user's send (input) buffer. */
    SEND,
    /** The user's receive (output) buffer. */
    RECV,
    /** Nothing (an absent operand). */
    NONE
}
