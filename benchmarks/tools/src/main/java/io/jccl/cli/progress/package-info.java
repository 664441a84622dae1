/** The tools' progress bars (me.tongfei progressbar on standard error). */
package io.jccl.cli.progress;
