/**
 * JCCL in Spark barrier mode: {@link io.jccl.examples.spark.JcclSpark} gives every task of a barrier stage a
 * communicator, {@link io.jccl.examples.spark.BarrierRdd} runs a barrier stage from Java, and
 * {@link io.jccl.examples.spark.SparkLogisticRegression} trains logistic regression with JCCL all-reduce and with
 * MLlib on the same data. Spark is a dependency of this module only.
 */
package io.jccl.examples.spark;
