package io.jccl.net.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Parsing of the TCP transport's options; invalid values are covered by the conformance subclass. */
class TcpOptionsTest {
    @Test
    void defaultsToFourMebibyteSocketBuffers() {
        assertThat(TcpOptions.parse(Map.of()).socketBufferBytes()).isEqualTo(4 << 20);
        assertThat(TcpOptions.parse(null).socketBufferBytes()).isEqualTo(4 << 20);
    }

    @Test
    void readsTheSocketBufferSize() {
        Map<String, String> options = new HashMap<>();
        options.put("JCCL_SOCKET_BUFFER_BYTES", "1048576");
        options.put("JCCL_SOMETHING_ELSE", "ignored");
        assertThat(TcpOptions.parse(options).socketBufferBytes()).isEqualTo(1 << 20);
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_BUFFER_BYTES", "0")).socketBufferBytes()).isZero();
        assertThat(TcpOptions.parse(Map.of("JCCL_SOCKET_BUFFER_BYTES", "2147483647")).socketBufferBytes())
                .isEqualTo(Integer.MAX_VALUE);
    }
}
