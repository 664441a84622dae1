package io.jccl.metaroce.puritycheck;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/** Breaks "no I/O": sockets, channels, files. */
final class ImpureIo {
    private ImpureIo() {
    }

    static void send() throws IOException {
        try (DatagramChannel channel = DatagramChannel.open()) {
            channel.connect(new InetSocketAddress("localhost", 9));
        }
        Files.readAllBytes(Path.of("x"));
        new File("y").delete();
    }
}
