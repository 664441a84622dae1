package io.jccl.examples.spark;

import org.apache.spark.sql.SparkSession;

/**
 * One {@code local[4]} session for all test classes of this module (they run in one JVM): starting Spark costs
 * seconds, a large part of the module's test time. Spark's own shutdown hook stops it when the JVM exits.
 */
final class TestSpark {
    private static SparkSession session;

    private TestSpark() {
    }

    static synchronized SparkSession session() {
        if (session == null) {
            session = SparkLogisticRegression.session("local[4]", 4);
        }
        return session;
    }
}
