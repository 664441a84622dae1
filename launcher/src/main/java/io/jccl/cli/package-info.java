/** The {@code jccl} command line: one picocli command with a subcommand per tool. */
package io.jccl.cli;
