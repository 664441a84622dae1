package io.jccl.cli.bench.loss;

import io.jccl.cli.bench.Json;
import io.jccl.cli.plot.LinePlot;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How {@code jccl bench loss} shows a sweep: a table, one JSON object, a PNG plot. */
public final class LossReport {
    /** Width of the plot, pixels. */
    public static final int PLOT_WIDTH_PIXELS = 900;
    /** Height of the plot, pixels. */
    public static final int PLOT_HEIGHT_PIXELS = 560;

    private LossReport() {
    }

    /**
     * The sweep as one JSON object: {@code {"results":[...]}} with one object per transport and loss (fields
     * {@code transport, loss, link, bytes, goodputBytesPerSec, goodputRatio, seconds, status, deliveredBytes,
     * droppedPackets, overflowPackets, forwardedPackets, wallSeconds, runs}, and {@code reason} when the status is not {@code ok}; numbers
     * not measured are null, link counters not kept are -1), and with a model {@code "model":[{"protocol":"gbn",
     * "loss","goodputBytesPerSec","goodputRatio"}...]}.
     *
     * @param rows  the sweep
     * @param model the go-back-N model, empty for none
     * @return the JSON text, on one line
     */
    public static String json(List<LossRow> rows, List<ModelPoint> model) {
        Json j = new Json().beginObject().beginArray("results");
        for (LossRow r : rows) {
            LossTransfer.Outcome o = r.outcome();
            j.beginObject().field("transport", r.transport()).field("loss", r.loss()).field("link", r.link())
                    .field("bytes", r.bytes()).field("goodputBytesPerSec", o.goodputBytesPerSec())
                    .field("goodputRatio", r.goodputRatio()).field("seconds", o.seconds())
                    .field("status", o.status().label()).field("deliveredBytes", o.deliveredBytes())
                    .field("droppedPackets", o.counters().droppedPackets())
                    .field("overflowPackets", o.counters().overflowPackets())
                    .field("forwardedPackets", o.counters().forwardedPackets())
                    .field("wallSeconds", o.wallSeconds()).field("runs", (long) r.runs());
            if (o.reason() != null) {
                j.field("reason", o.reason());
            }
            j.endObject();
        }
        j.endArray();
        if (!model.isEmpty()) {
            j.beginArray("model");
            for (ModelPoint m : model) {
                j.beginObject().field("protocol", "gbn").field("loss", m.loss())
                        .field("goodputBytesPerSec", m.goodputBytesPerSec()).field("goodputRatio", m.goodputRatio())
                        .endObject();
            }
            j.endArray();
        }
        return j.endObject().toString();
    }

    /**
     * Prints the sweep as a table (one row per transport and loss), then the reasons of runs that did not end well
     * and the model.
     *
     * @param out    where
     * @param header lines printed first, each after {@code "# "}
     * @param rows   the sweep
     * @param model  the go-back-N model, empty for none
     */
    public static void table(PrintStream out, List<String> header, List<LossRow> rows, List<ModelPoint> model) {
        for (String h : header) {
            out.println("# " + h);
        }
        out.println("#");
        out.printf(Locale.ROOT, "# %-9s %-5s %6s %14s %7s %9s %8s %9s %9s %10s  %s%n", "transport", "link", "loss",
                "goodput(GB/s)", "ratio", "time(s)", "wall(s)", "dropped", "overflow", "forwarded", "status");
        for (LossRow r : rows) {
            LossTransfer.Outcome o = r.outcome();
            out.printf(Locale.ROOT, "  %-9s %-5s %6s %14s %7s %9s %8.1f %9s %9s %10s  %s%n", r.transport(),
                    r.link(), percent(r.loss()), number(o.goodputBytesPerSec() / 1e9, "%.4f"),
                    number(r.goodputRatio(), "%.3f"), number(o.seconds(), "%.2f"), o.wallSeconds(),
                    count(o.counters().droppedPackets()), count(o.counters().overflowPackets()),
                    count(o.counters().forwardedPackets()), o.status().label());
        }
        List<String> notes = new ArrayList<>();
        for (LossRow r : rows) {
            if (r.outcome().reason() != null && !notes.contains(r.outcome().reason())) {
                notes.add(r.outcome().reason());
                out.printf(Locale.ROOT, "# %s at loss %s: %s%n", r.transport(), percent(r.loss()),
                        r.outcome().reason());
            }
        }
        if (!model.isEmpty()) {
            out.println("#");
            out.println("# model: go-back-N (RoCEv2's loss recovery) in the fabric simulator, the same bytes and "
                    + "losses (jccl bench transport --protocol gbn defaults: 100 Gbit/s, window 64, RTO 1 ms)");
            out.printf(Locale.ROOT, "# %-9s %-5s %6s %14s %7s%n", "protocol", "", "loss", "goodput(GB/s)", "ratio");
            for (ModelPoint m : model) {
                out.printf(Locale.ROOT, "  %-9s %-5s %6s %14s %7s%n", "gbn(sim)", "", percent(m.loss()),
                        number(m.goodputBytesPerSec() / 1e9, "%.4f"), number(m.goodputRatio(), "%.3f"));
            }
        }
        out.println("#");
        out.println("# goodput: bytes from the first receive posted to the last byte, every byte checked; ratio: "
                + "over the same transport's goodput at loss 0; for a timeout, what arrived in the time it took");
    }

    /**
     * Draws goodput relative to loss 0 against the loss rate, one line per transport (its runs that finished) and
     * one for the model. Loss rates sit at even steps along x, labelled, whatever their values: a sweep is usually
     * 0 and a few decades, which neither a linear nor a log axis shows well.
     *
     * @param file   the PNG
     * @param title  drawn above the chart
     * @param losses the loss rates, in order along x
     * @param rows   the sweep
     * @param model  the go-back-N model, empty for none
     * @throws IOException when the file cannot be written
     */
    public static void plot(Path file, String title, List<Double> losses, List<LossRow> rows, List<ModelPoint> model)
            throws IOException {
        List<Double> positions = new ArrayList<>();
        for (int i = 0; i < losses.size(); i++) {
            positions.add((double) i);
        }
        LinePlot p = new LinePlot(title, "random loss per packet, each direction",
                "goodput / goodput at loss 0").xTicks(positions)
                .xTickFormat(x -> {
                    int i = (int) Math.round(x);
                    return i >= 0 && i < losses.size() ? percent(losses.get(i)) : "";
                })
                .yTickFormat(y -> String.format(Locale.ROOT, "%.2f", y));
        Map<String, List<double[]>> lines = new LinkedHashMap<>();
        for (LossRow r : rows) {
            String name = r.transport() + " (" + r.link() + " link)";
            if (r.outcome().status() == LossTransfer.Status.SKIPPED) {
                continue;
            }
            List<double[]> points = lines.computeIfAbsent(name, k -> new ArrayList<>());
            int at = losses.indexOf(r.loss());
            if (r.outcome().status() == LossTransfer.Status.OK && at >= 0 && !Double.isNaN(r.goodputRatio())) {
                points.add(new double[] {at, r.goodputRatio()});
            }
        }
        lines.forEach(p::series);
        if (!model.isEmpty()) {
            List<double[]> points = new ArrayList<>();
            for (ModelPoint m : model) {
                int at = losses.indexOf(m.loss());
                if (at >= 0 && !Double.isNaN(m.goodputRatio())) {
                    points.add(new double[] {at, m.goodputRatio()});
                }
            }
            p.series("go-back-N model (simulated)", points);
        }
        p.writePng(file, PLOT_WIDTH_PIXELS, PLOT_HEIGHT_PIXELS);
    }

    /** @return a loss rate as a short percentage: 0, 0.1%, 1%, 12.5% */
    public static String percent(double loss) {
        if (loss == 0) {
            return "0";
        }
        String s = String.format(Locale.ROOT, "%.4f", loss * 100).replaceFirst("\\.?0+$", "");
        return (s.isEmpty() || s.equals("0") ? String.format(Locale.ROOT, "%.3g", loss * 100) : s) + "%";
    }

    private static String number(double v, String format) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
    }

    private static String count(long v) {
        return v < 0 ? "-" : Long.toString(v);
    }
}
