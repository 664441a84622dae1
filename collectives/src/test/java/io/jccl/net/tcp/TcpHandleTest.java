package io.jccl.net.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jccl.net.NetException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The listener handle's encoding, and its validation of malformed bytes. */
class TcpHandleTest {
    private static final byte[] TOKEN = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

    @Test
    void ipv4HandleRoundTrips() throws Exception {
        TcpHandle handle = new TcpHandle(new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 40_000), TOKEN);
        byte[] bytes = handle.encode();
        assertThat(bytes).hasSize(12 + 4 + 16);
        assertThat(TcpHandle.decode(bytes)).isEqualTo(handle);
        assertThat(TcpHandle.decode(bytes).token().bytes()).isEqualTo(TOKEN);
    }

    @Test
    void ipv6HandleKeepsItsScope() throws Exception {
        byte[] raw = InetAddress.getByName("fe80::1").getAddress();
        InetAddress linkLocal = Inet6Address.getByAddress(null, raw, 3);
        TcpHandle handle = new TcpHandle(new InetSocketAddress(linkLocal, 65_535), TOKEN);
        TcpHandle decoded = TcpHandle.decode(handle.encode());
        assertThat(decoded).isEqualTo(handle);
        assertThat(((Inet6Address) decoded.address().getAddress()).getScopeId()).isEqualTo(3);
    }

    @Test
    void malformedHandlesAreProtocolErrorsSayingWhy() throws Exception {
        byte[] valid = new TcpHandle(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1234), TOKEN).encode();
        assertMalformed(null, "null");
        assertMalformed(new byte[5], "fewer than");
        assertMalformed(Arrays.copyOf(valid, valid.length - 1), "bytes");
        assertMalformed(Arrays.copyOf(valid, valid.length + 1), "bytes");
        assertMalformed(edit(valid, b -> b.putInt(0, 0x11223344)), "magic");
        assertMalformed(edit(valid, b -> b.put(4, (byte) 9)), "version");
        assertMalformed(edit(valid, b -> b.put(5, (byte) 6)), "address length");
        assertMalformed(edit(valid, b -> b.putShort(6, (short) 0)), "port 0");
        assertMalformed(edit(valid, b -> b.putInt(8, 7)), "scope id");
    }

    @Test
    void tokenMustHaveSixteenBytes() {
        assertThatThrownBy(() -> new TcpHandle(new InetSocketAddress(InetAddress.getLoopbackAddress(), 1), new byte[3]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] edit(byte[] valid, Consumer<ByteBuffer> change) {
        byte[] copy = valid.clone();
        change.accept(ByteBuffer.wrap(copy));
        return copy;
    }

    private static void assertMalformed(byte[] bytes, String why) {
        assertThatThrownBy(() -> TcpHandle.decode(bytes))
                .isInstanceOfSatisfying(NetException.class,
                        e -> assertThat(e.reason()).isEqualTo(NetException.Reason.PROTOCOL_ERROR))
                .hasMessageContaining("malformed tcp handle")
                .hasMessageContaining(why);
    }
}
