/** Charts drawn with java.awt and written with javax.imageio, headless. */
package io.jccl.cli.plot;
