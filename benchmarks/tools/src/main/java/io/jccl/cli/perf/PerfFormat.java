package io.jccl.cli.perf;

import io.jccl.cli.bench.Json;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * nccl-tests' text and JSON output for {@code jccl perf}, as pure functions of the numbers (so tests can pin the
 * format with fixed values). Field widths are those of nccl-tests' {@code src/common.cu}.
 */
public final class PerfFormat {
    private PerfFormat() {
    }

    /**
     * One placement's numbers for one size.
     *
     * @param timeUs  time per call, microseconds (combined over ranks as -a says)
     * @param algBw   size / time, GB/s
     * @param busBw   algBw * the collective's factor, GB/s
     * @param wrong   wrong elements over all ranks, or -1 when not checked (-c 0)
     */
    public record Result(double timeUs, double algBw, double busBw, long wrong) {
    }

    /**
     * One row: one size of one (type, op, root).
     *
     * @param collective the collective's command-line name (JSON only)
     * @param size       the size column, bytes
     * @param count      the count passed to the call
     * @param type       nccl-tests' type name
     * @param redop      reduction name, or {@code none}
     * @param root       root, or -1 for collectives without one
     * @param outOfPlace out-of-place numbers
     * @param inPlace    in-place numbers, or null where the collective has no in-place form
     */
    public record Row(String collective, long size, long count, String type, String redop, int root, Result outOfPlace,
                      Result inPlace) {
    }

    /**
     * One rank's line under "# Using devices".
     *
     * @param rank      rank
     * @param pid       its process id
     * @param host      its host name
     * @param transport the transport it was asked to use ({@code auto} for the automatic choice)
     */
    public record Device(int rank, long pid, String host, String transport) {
    }

    /**
     * The lines before the table.
     *
     * @param minBytes   -b
     * @param maxBytes   -e
     * @param stepFactor -f (1: step by bytes)
     * @param stepBytes  -i
     * @param warmup     -w
     * @param iters      -n
     * @param agg        -m
     * @param check      -c
     * @param devices    one per rank
     * @return the lines, without line ends
     */
    public static List<String> header(long minBytes, long maxBytes, long stepFactor, long stepBytes, int warmup,
                                      int iters, int agg, int check, List<Device> devices) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(%s) warmup iters: %d"
                        + " iters: %d agg iters: %d validation: %d graph: 0", minBytes, maxBytes,
                stepFactor > 1 ? stepFactor : stepBytes, stepFactor > 1 ? "factor" : "bytes", warmup, iters, agg,
                check));
        out.add("#");
        out.add("# Using devices");
        for (Device d : devices) {
            out.add(String.format(Locale.ROOT, "#  Rank %2d Group %2d Pid %6d on %10s transport %s", d.rank(), 0,
                    d.pid(), d.host(), d.transport()));
        }
        out.add("#");
        out.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "", "", "", "", "")
                + "           out-of-place                       in-place          ");
        out.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop", "root")
                + String.format(Locale.ROOT, "  %7s  %6s  %6s %6s", "time", "algbw", "busbw", "#wrong")
                + String.format(Locale.ROOT, "  %7s  %6s  %6s %6s", "time", "algbw", "busbw", "#wrong"));
        out.add(String.format(Locale.ROOT, "# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "")
                + String.format(Locale.ROOT, "  %7s  %6s  %6s %6s", "(us)", "(GB/s)", "(GB/s)", "")
                + String.format(Locale.ROOT, "  %7s  %6s  %6s %6s", "(us)", "(GB/s)", "(GB/s)", ""));
        return out;
    }

    /**
     * @param row the numbers
     * @return the table line
     */
    public static String row(Row row) {
        return String.format(Locale.ROOT, "%12d  %12d  %8s  %6s  %6d", row.size(), row.count(), row.type(),
                row.redop(), row.root()) + placement(row.outOfPlace()) + placement(row.inPlace());
    }

    private static String placement(Result r) {
        if (r == null) {
            return String.format(Locale.ROOT, "  %7s  %6s  %6s  %5s", "N/A", "N/A", "N/A", "N/A");
        }
        return String.format(Locale.ROOT, "  %7s  %6.2f  %6.2f  %5s", time(r.timeUs()), r.algBw(), r.busBw(),
                r.wrong() < 0 ? "N/A" : Long.toString(r.wrong()));
    }

    /**
     * nccl-tests' time column: two decimals below 100 us, one below 10 ms, none above.
     *
     * @param us microseconds
     * @return seven characters or more
     */
    static String time(double us) {
        String f = us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f";
        return String.format(Locale.ROOT, f, us);
    }

    /**
     * The lines after the table.
     *
     * @param rows every row printed
     * @return the lines, without line ends
     */
    public static List<String> footer(List<Row> rows) {
        long wrong = totalWrong(rows);
        return List.of(String.format(Locale.ROOT, "# Out of bounds values : %d %s", wrong, wrong > 0 ? "FAILED" : "OK"),
                "# Avg bus bandwidth    : " + cG(averageBusBw(rows)) + " ",
                "#");
    }

    /**
     * @param rows rows
     * @return wrong elements over every row and placement (unchecked ones count 0)
     */
    public static long totalWrong(List<Row> rows) {
        long wrong = 0;
        for (Row r : rows) {
            wrong += Math.max(0, r.outOfPlace().wrong()) + (r.inPlace() == null ? 0 : Math.max(0, r.inPlace().wrong()));
        }
        return wrong;
    }

    /**
     * nccl-tests' "Avg bus bandwidth": the mean busbw over every row and placement that ran.
     *
     * @param rows rows
     * @return GB/s, 0 without rows
     */
    public static double averageBusBw(List<Row> rows) {
        double sum = 0;
        int n = 0;
        for (Row r : rows) {
            sum += r.outOfPlace().busBw();
            n++;
            if (r.inPlace() != null) {
                sum += r.inPlace().busBw();
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }

    /**
     * C's {@code %g}: six significant digits, trailing zeros removed, exponent form below 1e-4 and from 1e6.
     *
     * @param v value
     * @return the text
     */
    static String cG(double v) {
        if (v == 0) {
            return "0";
        }
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return Double.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
        }
        BigDecimal d = new BigDecimal(v).round(new MathContext(6));
        int exp = d.precision() - d.scale() - 1;
        if (exp < -4 || exp >= 6) {
            BigDecimal mant = d.movePointLeft(exp).stripTrailingZeros();
            return String.format(Locale.ROOT, "%se%s%02d", mant.toPlainString(), exp < 0 ? "-" : "+", Math.abs(exp));
        }
        return d.stripTrailingZeros().toPlainString();
    }

    /**
     * The {@code -J} document: one object, one entry per row and placement that ran.
     *
     * @param rows rows
     * @return the JSON text, one line
     */
    public static String json(List<Row> rows) {
        Json j = new Json().beginObject().beginArray("results");
        for (Row r : rows) {
            entry(j, r, r.outOfPlace(), false);
            if (r.inPlace() != null) {
                entry(j, r, r.inPlace(), true);
            }
        }
        return j.endArray().endObject().toString();
    }

    private static void entry(Json j, Row r, Result p, boolean inPlace) {
        j.beginObject().field("collective", r.collective()).field("size", r.size()).field("count", r.count()).field("type", r.type())
                .field("redop", r.redop()).field("root", (long) r.root()).field("time", p.timeUs())
                .field("algbw", p.algBw()).field("busbw", p.busBw());
        if (p.wrong() < 0) {
            j.field("wrong", Double.NaN);
        } else {
            j.field("wrong", p.wrong());
        }
        j.field("inPlace", inPlace).endObject();
    }
}
