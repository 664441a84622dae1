package io.jccl.examples.spark;

import org.apache.spark.BarrierTaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

import java.io.Serializable;
import java.util.Iterator;
import java.util.Objects;

/**
 * {@code rdd.barrier().mapPartitions(f)} for Java: {@code JavaRDD} has no {@code barrier()}, and the Scala
 * {@code RDDBarrier} wants a Scala function and a {@code ClassTag}. Every task of the resulting stage starts
 * together, and the function receives its {@link BarrierTaskContext}.
 */
public final class BarrierRdd {
    private BarrierRdd() {
    }

    /**
     * What each barrier task runs over its partition.
     *
     * @param <T> the input element type
     * @param <U> the output element type
     */
    @FunctionalInterface
    public interface TaskFunction<T, U> extends Serializable {
        /**
         * @param ctx       the task's barrier context
         * @param partition the partition's elements
         * @return the task's output elements
         * @throws Exception any failure, which fails the task and so the stage
         */
        Iterator<U> call(BarrierTaskContext ctx, Iterator<T> partition) throws Exception;
    }

    /**
     * @param rdd the input, with no more partitions than the cluster has task slots (barrier tasks all run at once)
     * @param f   what every task runs
     * @param <T> the input element type
     * @param <U> the output element type
     * @return the lazily computed output
     */
    public static <T, U> JavaRDD<U> mapPartitions(JavaRDD<T> rdd, TaskFunction<T, U> f) {
        Objects.requireNonNull(rdd, "rdd");
        Objects.requireNonNull(f, "f");
        @SuppressWarnings("unchecked")
        ClassTag<U> tag = (ClassTag<U>) (ClassTag<?>) ClassTag$.MODULE$.AnyRef();
        RDD<U> out = rdd.rdd().barrier().mapPartitions(new ScalaTask<>(f), false, tag);
        return JavaRDD.fromRDD(out, tag);
    }

    /** The Scala function Spark serialises to the executors. */
    private static final class ScalaTask<T, U>
            extends AbstractFunction1<scala.collection.Iterator<T>, scala.collection.Iterator<U>>
            implements Serializable {
        private static final long serialVersionUID = 1L;
        private final TaskFunction<T, U> f;

        ScalaTask(TaskFunction<T, U> f) {
            this.f = f;
        }

        @Override
        public scala.collection.Iterator<U> apply(scala.collection.Iterator<T> partition) {
            try {
                return CollectionConverters.asScala(f.call(BarrierTaskContext.get(),
                        CollectionConverters.asJava(partition)));
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }
}
