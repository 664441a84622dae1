package io.jccl.metaroce.sim;

import io.jccl.metaroce.protocol.CompletionHandler;
import io.jccl.metaroce.protocol.CompletionStatus;
import io.jccl.metaroce.protocol.WorkKind;

/** A {@link GoBackNEndpoint}'s completions not yet polled: a FIFO ring in primitive arrays, grown when full. */
final class GoBackNCompletions {
    private static final WorkKind[] KINDS = WorkKind.values();
    private static final CompletionStatus[] STATUSES = CompletionStatus.values();

    private int[] cConn = new int[64];
    private long[] cWork = new long[64];
    private byte[] cKind = new byte[64];
    private byte[] cStatus = new byte[64];
    private long[] cBytes = new long[64];
    private int cHead;
    private int cCount;

    /** Hands every completion to {@code handler}, oldest first; @return how many */
    int poll(CompletionHandler handler) {
        int n = 0;
        while (cCount > 0) {
            int i = cHead;
            cHead = (cHead + 1) & (cConn.length - 1);
            cCount--;
            n++;
            handler.onCompletion(cConn[i], cWork[i], KINDS[cKind[i]], STATUSES[cStatus[i]], cBytes[i]);
        }
        return n;
    }

    /** Appends one completion. */
    void add(int connectionId, long workId, WorkKind kind, CompletionStatus status, long bytes) {
        if (cCount == cConn.length) {
            int n = cConn.length * 2;
            int[] conn = new int[n];
            long[] work = new long[n];
            byte[] kinds = new byte[n];
            byte[] st = new byte[n];
            long[] b = new long[n];
            for (int i = 0; i < cCount; i++) {
                int j = (cHead + i) & (cConn.length - 1);
                conn[i] = cConn[j];
                work[i] = cWork[j];
                kinds[i] = cKind[j];
                st[i] = cStatus[j];
                b[i] = cBytes[j];
            }
            cConn = conn;
            cWork = work;
            cKind = kinds;
            cStatus = st;
            cBytes = b;
            cHead = 0;
        }
        int j = (cHead + cCount) & (cConn.length - 1);
        cConn[j] = connectionId;
        cWork[j] = workId;
        cKind[j] = (byte) kind.ordinal();
        cStatus[j] = (byte) status.ordinal();
        cBytes[j] = bytes;
        cCount++;
    }
}
