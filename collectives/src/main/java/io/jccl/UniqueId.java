package io.jccl;

/** TEMPORARY stand-in (replaced at merge). */
public final class UniqueId {
}
