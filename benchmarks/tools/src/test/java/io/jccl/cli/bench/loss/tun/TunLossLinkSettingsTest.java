package io.jccl.cli.bench.loss.tun;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link TunLossLink.Settings} validation and defaults, {@link Tun}'s error text: no root needed. */
class TunLossLinkSettingsTest {
    @ParameterizedTest
    @ValueSource(doubles = {-0.01, 1.0001, Double.NaN, Double.POSITIVE_INFINITY, -1})
    void lossOutsideZeroToOneIsRefusedNamingFieldAndValue(double loss) {
        assertThatThrownBy(() -> TunLossLink.Settings.of(loss, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lossRate must be in [0, 1], got " + loss);
    }

    @ParameterizedTest
    @ValueSource(ints = {575, 0, -1, 65_536, Integer.MAX_VALUE})
    void mtuOutOfRangeIsRefusedNamingFieldAndValue(int mtu) {
        assertThatThrownBy(() -> TunLossLink.Settings.of(0, 1).withMtuBytes(mtu))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mtuBytes must be in [576, 65535], got " + mtu);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.231", "10.231.0.0", "10.231.0.0/24", "256.1.1", "10.1.1000", "a.b.c", "", " 10.1.1"})
    void aSubnetThatIsNotThreeOctetsIsRefusedNamingFieldAndValue(String prefix) {
        assertThatThrownBy(() -> TunLossLink.Settings.of(0, 1).withSubnetPrefix(prefix))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("subnetPrefix must be the first three octets of an IPv4 /24")
                .hasMessageEndingWith("got '" + prefix + "'");
        assertThatThrownBy(() -> TunLossLink.Settings.of(0, 1).withSubnetPrefix(null))
                .isInstanceOf(NullPointerException.class).hasMessage("subnetPrefix");
    }

    @Test
    void theBoundsThemselvesAreAccepted() {
        assertThatNoException().isThrownBy(() -> new TunLossLink.Settings(0, 0, 576, "0.0.0"));
        assertThatNoException().isThrownBy(() -> new TunLossLink.Settings(1, -1, 65_535, "255.255.255"));
    }

    @Test
    void defaultsAreAJumboFrameMtuAndTheTenTwoThirtyOneSubnet() {
        TunLossLink.Settings s = TunLossLink.Settings.of(0.01, 42);
        assertThat(s).isEqualTo(new TunLossLink.Settings(0.01, 42, 9000, "10.231.0"));
        assertThat(s.address(0).getHostAddress()).isEqualTo("10.231.0.1");
        assertThat(s.address(1).getHostAddress()).isEqualTo("10.231.0.2");
        assertThat(s.withSubnetPrefix("172.16.254").address(1).getHostAddress()).isEqualTo("172.16.254.2");
        assertThatThrownBy(() -> s.address(2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("side must be 0 or 1, got 2");
    }

    @Test
    void nativeErrorsReadWithTheirSymbolAndLibcText() {
        assertThat(Tun.describeErrno(1)).isEqualTo("EPERM (Operation not permitted)");
        assertThat(Tun.describeErrno(2)).isEqualTo("ENOENT (No such file or directory)");
        assertThat(Tun.error("ioctl(TUNSETIFF, \"x\") on /dev/net/tun", 16))
                .hasMessage("ioctl(TUNSETIFF, \"x\") on /dev/net/tun failed: EBUSY (Device or resource busy)");
        assertThat(Tun.describeErrno(133)).startsWith("errno 133 (");
        assertThatThrownBy(() -> Tun.create("sixteen-chars-xx")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("namePattern must have 1 to 15 characters, got 'sixteen-chars-xx'");
    }
}
