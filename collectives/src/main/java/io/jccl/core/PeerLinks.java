package io.jccl.core;

import io.jccl.net.NetTransport;
import io.jccl.net.RecvConnection;
import io.jccl.net.SendConnection;

import java.util.List;

/** A rank's connections to each peer: data and control, each one way, plus the transports that own them. */
final class PeerLinks {
    final SendConnection[] dataSend;
    final RecvConnection[] dataRecv;
    final SendConnection[] controlSend;
    final RecvConnection[] controlRecv;
    final String[] transportNames;
    final List<NetTransport> transports;

    PeerLinks(int size, List<NetTransport> transports) {
        this.dataSend = new SendConnection[size];
        this.dataRecv = new RecvConnection[size];
        this.controlSend = new SendConnection[size];
        this.controlRecv = new RecvConnection[size];
        this.transportNames = new String[size];
        this.transports = transports;
    }

    void closeData() {
        for (int i = 0; i < dataSend.length; i++) {
            closeQuietly(dataSend[i]);
            closeQuietly(dataRecv[i]);
        }
    }

    void closeAll() {
        closeData();
        for (int i = 0; i < controlSend.length; i++) {
            closeQuietly(controlSend[i]);
            closeQuietly(controlRecv[i]);
        }
        for (NetTransport t : transports) {
            closeQuietly(t);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // Closing is best effort; the peer notices either way.
            }
        }
    }
}
