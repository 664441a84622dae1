package io.jccl.cli.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * One of the launcher's output streams, shared by every rank: each line is written whole, with its rank's prefix,
 * under one lock, so lines of different ranks never interleave. A line longer than {@value #MAX_LINE_BYTES} bytes
 * is cut into several prefixed lines rather than buffered without bound.
 */
final class LineSink {
    /** Longest piece of a line written at once. */
    static final int MAX_LINE_BYTES = 64 * 1024;

    private final OutputStream out;

    LineSink(OutputStream out) {
        this.out = out;
    }

    /** Writes one text line (a newline is added), e.g. the launcher's own messages. */
    void println(String text) {
        byte[] b = (text + "\n").getBytes(StandardCharsets.UTF_8);
        write(new byte[0], b, 0, b.length);
    }

    private void write(byte[] prefix, byte[] buf, int off, int len) {
        synchronized (this) {
            try {
                out.write(prefix);
                out.write(buf, off, len);
                out.flush();
            } catch (IOException e) {
                // The launcher's own output is gone (a closed pipe): the ranks keep running regardless.
            }
        }
    }

    /**
     * Copies {@code in} line by line with {@code prefix} in front of each line until it ends; a last line without
     * a newline gets one.
     */
    void pump(InputStream in, byte[] prefix) {
        byte[] buf = new byte[MAX_LINE_BYTES + 1];
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
                        write(prefix, buf, start, i + 1 - start);
                        start = i + 1;
                    }
                }
                filled = end - start;
                System.arraycopy(buf, start, buf, 0, filled);
                if (filled == MAX_LINE_BYTES) {
                    buf[filled] = '\n';
                    write(prefix, buf, 0, filled + 1);
                    filled = 0;
                }
            }
        } catch (IOException e) {
            // The process is gone and its pipe closed: what was read is written below.
        }
        if (filled > 0) {
            buf[filled] = '\n';
            write(prefix, buf, 0, filled + 1);
        }
    }
}
