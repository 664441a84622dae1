/** The cost model that picks the all-reduce algorithm and the pipeline chunk size. */
package io.jccl.tune;
