package io.jccl.metaroce.protocol.wire;

import io.jccl.metaroce.protocol.DropReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A DATA packet without payload is valid exactly when it carries an empty message. */
class EmptyMessageTest {
    private static int build(UnsafeBuffer b, long messageLength) {
        DataFlyweight d = new DataFlyweight().wrap(b, 0);
        d.putHeader(PacketType.SEND, Flags.LAST, 0, 0, 7, 9, 0);
        d.psn(1).timestampNs(2).message(3).target(4).messageOffset(0).messageLength(messageLength).base(0);
        return new Crc32c().finish(b, 0, DataFlyweight.DATA_HEADER_LENGTH);
    }

    @Test
    void emptyMessagesHaveEmptyBodiesAndOthersDoNot() {
        UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
        PacketValidator v = new PacketValidator();
        assertThat(v.check(b, 0, build(b, 0))).isNull();
        assertThat(v.check(b, 0, build(b, 10))).isEqualTo(DropReason.BAD_LENGTH);
    }
}
