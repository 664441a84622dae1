package io.jccl.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** Every getter's accepted forms, its bounds, and the one error form naming key, value and what is allowed. */
class OptionReaderTest {
    private enum Mode { FAST, SLOW_START }

    private static OptionReader reader(String key, String value) {
        Map<String, String> m = new HashMap<>();
        m.put(key, value);
        return OptionReader.of(m);
    }

    private static void refused(Runnable read, String message) {
        assertThatThrownBy(read::run).isInstanceOf(InvalidOptionException.class).hasMessage(message);
    }

    @Test
    void unsetKeysTakeTheirDefaultsAndANullMapReadsAsEmpty() {
        OptionReader o = OptionReader.of(null);
        assertThat(o.isSet("JCCL_X")).isFalse();
        assertThat(o.raw("JCCL_X")).isNull();
        assertThat(o.string("JCCL_X", "d")).isEqualTo("d");
        assertThat(o.flag("JCCL_X", true)).isTrue();
        assertThat(o.longValue("JCCL_X", 7, 1, 9)).isEqualTo(7);
        assertThat(o.intValue("JCCL_X", 3, 1, 9, "paths")).isEqualTo(3);
        assertThat(o.whole("JCCL_X", -1, v -> false, "never")).as("a default is not checked").isEqualTo(-1);
        assertThat(o.bytes("JCCL_X", 0, 4096, 1 << 20)).isZero();
        assertThat(o.choice("JCCL_X", Mode.FAST, Mode.class)).isEqualTo(Mode.FAST);
        assertThat(o.choice("JCCL_X", "auto", List.of("auto", "host"))).isEqualTo("auto");
    }

    @Test
    void aBlankValueIsRefusedUnlessBlankMeansUnset() {
        OptionReader o = reader("JCCL_N", "  ");
        assertThat(o.isSet("JCCL_N")).isTrue();
        refused(() -> o.longValue("JCCL_N", 1, 1, 9), "JCCL_N='  ' is invalid: it must be a whole number from 1 to 9");
        OptionReader blank = o.blankAsUnset();
        assertThat(blank.isSet("JCCL_N")).isFalse();
        assertThat(blank.longValue("JCCL_N", 5, 1, 9)).isEqualTo(5);
        assertThat(blank.string("JCCL_N", null)).isNull();
    }

    @Test
    void stringsAreStripped() {
        assertThat(reader("JCCL_S", " eth0 ").string("JCCL_S", null)).isEqualTo("eth0");
        assertThat(reader("JCCL_S", " eth0 ").raw("JCCL_S")).isEqualTo(" eth0 ");
    }

    @Test
    void flagsAreZeroOrOne() {
        assertThat(reader("JCCL_F", "1").flag("JCCL_F", false)).isTrue();
        assertThat(reader("JCCL_F", " 0 ").flag("JCCL_F", true)).isFalse();
        for (String bad : new String[] {"2", "-1", "yes", "true", ""}) {
            refused(() -> reader("JCCL_F", bad).flag("JCCL_F", false),
                    "JCCL_F='" + bad + "' is invalid: it must be 0 or 1");
        }
    }

    @Test
    void wholeNumbersAcceptTheirBoundsAndNothingOutside() {
        assertThat(reader("JCCL_P", "1").intValue("JCCL_P", 8, 1, 64)).isEqualTo(1);
        assertThat(reader("JCCL_P", " 64 ").intValue("JCCL_P", 8, 1, 64)).isEqualTo(64);
        assertThat(reader("JCCL_P", "+5").intValue("JCCL_P", 8, 1, 64)).isEqualTo(5);
        for (String bad : new String[] {"0", "65", "many", "1.5", "9223372036854775808", "0x10"}) {
            refused(() -> reader("JCCL_P", bad).intValue("JCCL_P", 8, 1, 64),
                    "JCCL_P='" + bad + "' is invalid: it must be a whole number from 1 to 64");
        }
        refused(() -> reader("JCCL_T", "-1").longValue("JCCL_T", 0, 0, 600_000, "milliseconds"),
                "JCCL_T='-1' is invalid: it must be a whole number of milliseconds from 0 to 600000");
        refused(() -> reader("JCCL_T", "-1").longValue("JCCL_T", 0, 0, Long.MAX_VALUE, "milliseconds"),
                "JCCL_T='-1' is invalid: it must be a whole number of milliseconds, at least 0");
        refused(() -> reader("JCCL_R", "x").intValue("JCCL_R", 0, 1, Integer.MAX_VALUE),
                "JCCL_R='x' is invalid: it must be a whole number, at least 1");
    }

    @Test
    void wholeNumbersWithARuleOfTheirOwnNameTheRule() {
        OptionReader o = reader("JCCL_TERM", "3");
        refused(() -> o.whole("JCCL_TERM", 1 << 20, v -> Long.bitCount(v) == 1, "a power of two"),
                "JCCL_TERM='3' is invalid: it must be a power of two");
        assertThat(reader("JCCL_TERM", "4").whole("JCCL_TERM", 0, v -> Long.bitCount(v) == 1, "x")).isEqualTo(4);
    }

    @Test
    void byteSizesTakeBinarySuffixesInAnyCase() {
        String key = "JCCL_CHUNK_SIZE";
        long max = 64L << 20;
        assertThat(reader(key, "4096").bytes(key, 0, 4096, max)).isEqualTo(4096);
        assertThat(reader(key, "512k").bytes(key, 0, 4096, max)).isEqualTo(512L << 10);
        assertThat(reader(key, "64M").bytes(key, 0, 4096, max)).isEqualTo(max);
        assertThat(reader(key, "64mb").bytes(key, 0, 4096, max)).isEqualTo(max);
        assertThat(reader(key, "1G").bytes(key, 0, 0, 1L << 40)).isEqualTo(1L << 30);
        assertThat(reader(key, "1T").bytes(key, 0, 0, 1L << 40)).isEqualTo(1L << 40);
        for (String bad : new String[] {"4095", "65M", "", "M", "-1", "1.5M", "12Q", "99999999999T"}) {
            refused(() -> reader(key, bad).bytes(key, 0, 4096, max), key + "='" + bad + "' is invalid: it must be a"
                    + " size in bytes (e.g. 524288, 512K, 1M) from 4096 to 67108864");
        }
    }

    @Test
    void choicesIgnoreCaseAndListTheAllowedNames() {
        assertThat(reader("JCCL_M", " slow_START ").choice("JCCL_M", Mode.FAST, Mode.class)).isEqualTo(Mode.SLOW_START);
        refused(() -> reader("JCCL_M", "nap").choice("JCCL_M", Mode.FAST, Mode.class),
                "JCCL_M='nap' is invalid: it must be one of fast, slow_start");
        assertThat(reader("JCCL_MEMORY", " HIP ").choice("JCCL_MEMORY", "auto", List.of("auto", "hip")))
                .isEqualTo("hip");
        refused(() -> reader("JCCL_MEMORY", "gpu").choice("JCCL_MEMORY", "auto", List.of("auto", "hip")),
                "JCCL_MEMORY='gpu' is invalid: it must be one of auto, hip");
    }

    @Test
    void errorsCarryTheKeyTheValueAndWhereItCameFrom() {
        OptionReader o = reader("JCCL_P", "0").withSource(k -> "set in CommConfig");
        assertThatThrownBy(() -> o.intValue("JCCL_P", 8, 1, 64)).isInstanceOfSatisfying(InvalidOptionException.class,
                e -> {
                    assertThat(e.key()).isEqualTo("JCCL_P");
                    assertThat(e.value()).isEqualTo("0");
                    assertThat(e).hasMessage("JCCL_P='0' is invalid: it must be a whole number from 1 to 64"
                            + " (set in CommConfig)");
                });
        assertThat(o.because("JCCL_P", "the host 'x' cannot be resolved"))
                .hasMessage("JCCL_P='0' is invalid: the host 'x' cannot be resolved (set in CommConfig)");
    }

    @Test
    void valuesAreQuotedPrintableAndCut() {
        String longValue = "x".repeat(100);
        refused(() -> reader("JCCL_P", "1\n2").intValue("JCCL_P", 8, 1, 64),
                "JCCL_P='1?2' is invalid: it must be a whole number from 1 to 64");
        refused(() -> reader("JCCL_P", longValue).intValue("JCCL_P", 8, 1, 64),
                "JCCL_P='" + "x".repeat(64) + "...' is invalid: it must be a whole number from 1 to 64");
    }

    @Property
    void anyInRangeWholeNumberReadsBack(@ForAll @LongRange(min = -1_000_000, max = 1_000_000) long min,
                                        @ForAll @LongRange(min = 0, max = 2_000_000) long width,
                                        @ForAll @LongRange(min = 0, max = 2_000_000) long offset) {
        long max = min + width;
        long value = min + Math.min(offset, width);
        assertThat(reader("JCCL_N", " " + value + " ").longValue("JCCL_N", min, min, max)).isEqualTo(value);
        assertThat(reader("JCCL_N", Long.toString(max + 1)).isSet("JCCL_N")).isTrue();
        assertThatThrownBy(() -> reader("JCCL_N", Long.toString(max + 1)).longValue("JCCL_N", min, min, max))
                .isInstanceOf(InvalidOptionException.class);
    }

    @Property
    void anySizeWrittenWithAnySuffixReadsBack(@ForAll("sizes") long units, @ForAll("suffixes") String suffix) {
        int shift = switch (Character.toUpperCase(suffix.isEmpty() ? ' ' : suffix.charAt(0))) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            case 'T' -> 40;
            default -> 0;
        };
        long bytes = units << shift;
        assertThat(reader("JCCL_SIZE", units + suffix).bytes("JCCL_SIZE", 0, 0, Long.MAX_VALUE)).isEqualTo(bytes);
    }

    @Provide
    Arbitrary<Long> sizes() {
        return Arbitraries.longs().between(0, 1L << 20);
    }

    @Provide
    Arbitrary<String> suffixes() {
        return Arbitraries.of("", "k", "K", "KB", "m", "M", "MB", "g", "G", "GB", "t", "T", "TB", "kb");
    }
}
