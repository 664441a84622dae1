/**
 * What a route does to packets beyond queueing (loss, bursts, corruption, duplication, jitter, reordering), as one
 * value shared by the shipped impairing relay ({@code fabric}) and the simulator ({@code sim}), so that neither
 * depends on the other.
 */
package io.jccl.metaroce.impair;
