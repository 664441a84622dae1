/** The CLI's charts: one look and one way of writing them ({@link io.jccl.cli.plot.Charts}), drawn with XChart, headless. */
package io.jccl.cli.plot;
