package io.jccl.cli.run;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link LineSink} against a stream that records every write: one write per line, never two at once. */
class LineSinkTest {
    /** Records each write as a string and counts writes that overlapped another. */
    private static final class RecordingStream extends OutputStream {
        final List<String> writes = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            Thread.yield();   // widen the window another writer could use
            writes.add(new String(b, off, len, StandardCharsets.UTF_8));
            inside.decrementAndGet();
        }
    }

    @Test
    void everyLineIsOneWriteAndTheTwoStreamsSharingALockNeverOverlap() throws Exception {
        RecordingStream file = new RecordingStream();   // stdout and stderr of the launcher: one file
        Object lock = new Object();
        LineSink out = new LineSink(file, lock);
        LineSink err = new LineSink(file, lock);
        List<Thread> pumps = new ArrayList<>();
        for (int rank = 0; rank < 3; rank++) {
            for (LineSink sink : List.of(out, err)) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; i < 500; i++) {
                    text.append(sink == out ? "out " : "err ").append(i).append(' ').append("y".repeat(200 + i))
                            .append('\n');
                }
                text.append("last line without a newline");
                byte[] prefix = ("[" + rank + "] ").getBytes(StandardCharsets.US_ASCII);
                byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
                pumps.add(Thread.ofPlatform().start(() -> sink.pump(new ByteArrayInputStream(bytes), prefix)));
            }
        }
        for (Thread t : pumps) {
            t.join();
        }
        out.println("jccl run: the launcher's own line");

        assertThat(file.overlaps.get()).as("writes that overlapped another").isZero();
        assertThat(file.writes).hasSize(3 * 2 * 501 + 1);
        for (String w : file.writes) {
            assertThat(w).matches("(\\[\\d] ((out|err) \\d+ y+|last line without a newline)|jccl run: the "
                    + "launcher's own line)\n");
        }
    }

    @Test
    void aLineLongerThanTheLimitIsCutIntoPrefixedPieces() {
        RecordingStream file = new RecordingStream();
        LineSink sink = new LineSink(file, new Object());
        String longLine = "z".repeat(LineSink.MAX_LINE_BYTES + 10) + "\n";
        sink.pump(new ByteArrayInputStream(longLine.getBytes(StandardCharsets.UTF_8)), "[7] ".getBytes(
                StandardCharsets.US_ASCII));
        assertThat(file.writes).containsExactly("[7] " + "z".repeat(LineSink.MAX_LINE_BYTES) + "\n",
                "[7] " + "z".repeat(10) + "\n");
    }
}
