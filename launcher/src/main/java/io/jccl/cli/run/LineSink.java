package io.jccl.cli.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One of the launcher's output streams, shared by every rank: each line is written whole, its rank's prefix and
 * its text in one write, under a lock that the launcher's standard output and standard error share (they may be
 * one file, {@code >job.log 2>&1}), so no line is ever spliced into another. A line longer than
 * {@value #MAX_LINE_BYTES} bytes is cut into several prefixed lines rather than buffered without bound.
 */
final class LineSink {
    /** Longest piece of a line written at once. */
    static final int MAX_LINE_BYTES = 64 * 1024;

    private final OutputStream out;
    private final Object lock;

    /**
     * @param out  where the lines go
     * @param lock held while a line is written; give every sink that may end in the same file the same one
     */
    LineSink(OutputStream out, Object lock) {
        this.out = out;
        this.lock = lock;
    }

    /** Writes one text line (a newline is added), e.g. the launcher's own messages. */
    void println(String text) {
        byte[] b = (text + "\n").getBytes(StandardCharsets.UTF_8);
        write(b, b.length);
    }

    private void write(byte[] line, int len) {
        synchronized (lock) {
            try {
                out.write(line, 0, len);
                out.flush();
            } catch (IOException e) {
                // The launcher's own output is gone (a closed pipe): the ranks keep running regardless.
            }
        }
    }

    /**
     * Copies {@code in} line by line with {@code prefix} in front of each line until it ends; a last line without
     * a newline gets one. Allocates its two buffers once.
     */
    void pump(InputStream in, byte[] prefix) {
        byte[] buf = new byte[MAX_LINE_BYTES];
        // The prefix stays at the front; each line is copied behind it and the whole written at once.
        byte[] line = new byte[prefix.length + MAX_LINE_BYTES + 1];
        System.arraycopy(prefix, 0, line, 0, prefix.length);
        int filled = 0;
        try (in) {
            while (true) {
                int n = in.read(buf, filled, MAX_LINE_BYTES - filled);
                if (n < 0) {
                    break;
                }
                int start = 0;
                int end = filled + n;
                for (int i = filled; i < end; i++) {
                    if (buf[i] == '\n') {
                        writeLine(line, prefix.length, buf, start, i + 1 - start);
                        start = i + 1;
                    }
                }
                filled = end - start;
                System.arraycopy(buf, start, buf, 0, filled);
                if (filled == MAX_LINE_BYTES) {
                    writeLine(line, prefix.length, buf, 0, filled);
                    filled = 0;
                }
            }
        } catch (IOException e) {
            // The process is gone and its pipe closed: what was read is written below.
        }
        if (filled > 0) {
            writeLine(line, prefix.length, buf, 0, filled);
        }
    }

    /** Writes {@code text[off, off + len)} behind the prefix in {@code line}, adding a newline if it has none. */
    private void writeLine(byte[] line, int prefixLength, byte[] text, int off, int len) {
        System.arraycopy(text, off, line, prefixLength, len);
        int total = prefixLength + len;
        if (line[total - 1] != '\n') {
            line[total++] = '\n';
        }
        write(line, total);
    }
}
