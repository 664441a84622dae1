/**
 * Logistic regression for the examples: a synthetic dataset generated per example from a seed
 * ({@link io.jccl.examples.logistic.SyntheticDataset}), the loss and its gradient over a rank's
 * {@link io.jccl.examples.logistic.Shard}, the same objective all-reduced across ranks
 * ({@link io.jccl.examples.logistic.LogisticObjective}) and L-BFGS ({@link io.jccl.examples.logistic.Lbfgs}).
 * Plain Java, shared by the plain and the Spark examples.
 */
package io.jccl.examples.logistic;
