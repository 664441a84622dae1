/**
 * Test-only fixtures for {@code io.jccl.metaroce.protocol.PurityTest}: classes that break each purity rule on
 * purpose, and one that uses everything the rules allow. Never referenced by production code.
 */
package io.jccl.metaroce.puritycheck;
