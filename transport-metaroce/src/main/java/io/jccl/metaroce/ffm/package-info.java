/**
 * What the hand-written Foreign Function &amp; Memory downcalls of this module share: the libc socket calls of
 * {@link io.jccl.metaroce.udp} and the libibverbs calls of {@link io.jccl.metaroce.verbs}.
 */
package io.jccl.metaroce.ffm;
