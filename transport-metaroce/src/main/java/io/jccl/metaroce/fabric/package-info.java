/**
 * Impaired networks on real sockets: {@link io.jccl.metaroce.fabric.ImpairmentRelay}, a UDP relay between two
 * endpoints that loses, corrupts, duplicates, delays, reorders and black-holes their datagrams.
 */
package io.jccl.metaroce.fabric;
