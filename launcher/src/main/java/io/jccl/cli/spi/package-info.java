/** The service interface through which jars on the class path add subcommands to {@code jccl}. */
package io.jccl.cli.spi;
