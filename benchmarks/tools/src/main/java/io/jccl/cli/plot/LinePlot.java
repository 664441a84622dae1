package io.jccl.cli.plot;

import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart of several named series, with a title, axis labels, a legend and an optional log2 x axis, drawn with
 * XChart (headless) and written as PNG, whole or not at all. Used by {@code jccl perf --plot} and
 * {@code jccl bench loss --plot}.
 */
public final class LinePlot {
    /**
     * One series.
     *
     * @param name   legend text
     * @param points (x, y) pairs in drawing order
     */
    public record Series(String name, List<double[]> points) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<Series> series = new ArrayList<>();
    private boolean logX;
    private DoubleFunction<String> xTicks = LinePlot::format;
    private DoubleFunction<String> yTicks = LinePlot::format;
    private List<Double> xTickValues;

    /**
     * @param title  drawn above the chart
     * @param xLabel under the x axis
     * @param yLabel beside the y axis
     */
    public LinePlot(String title, String xLabel, String yLabel) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
    }

    /**
     * @param on whether x is drawn on a log2 scale (x values must then be positive; others are skipped)
     * @return this
     */
    public LinePlot logX(boolean on) {
        this.logX = on;
        return this;
    }

    /**
     * @param f the text of an x tick at a value
     * @return this
     */
    public LinePlot xTickFormat(DoubleFunction<String> f) {
        this.xTicks = f;
        return this;
    }

    /**
     * Labels only these x values: for categories drawn at positions 0, 1, 2, ... with {@link #xTickFormat} naming
     * each (a linear axis only); ticks elsewhere stay unlabelled.
     *
     * @param values the x values to label
     * @return this
     */
    public LinePlot xTicks(List<Double> values) {
        this.xTickValues = List.copyOf(values);
        return this;
    }

    /**
     * @param f the text of a y tick at a value
     * @return this
     */
    public LinePlot yTickFormat(DoubleFunction<String> f) {
        this.yTicks = f;
        return this;
    }

    /**
     * Adds a series.
     *
     * @param name   legend text
     * @param points (x, y) pairs
     * @return this
     */
    public LinePlot series(String name, List<double[]> points) {
        series.add(new Series(name, List.copyOf(points)));
        return this;
    }

    /** @return the series added so far */
    public List<Series> series() {
        return List.copyOf(series);
    }

    /**
     * Draws the chart and writes it as PNG, through a temporary file beside it moved into place.
     *
     * @param file   where (its directory is created if missing)
     * @param width  pixels
     * @param height pixels
     * @throws IOException when it cannot be written
     */
    public void writePng(Path file, int width, int height) throws IOException {
        Charts.writePng(chart(width, height), file);
    }

    /** @return the chart: series as lines with markers, x on a log2 scale when asked (as a linear axis of log2 x) */
    XYChart chart(int width, int height) {
        XYChart chart = Charts.newChart(width, height, title, xLabel, yLabel);
        chart.setCustomXAxisTickLabelsFormatter(x -> {
            if (xTickValues != null && xTickValues.stream().noneMatch(v -> Math.abs(v - x) < 1e-9)) {
                return "";
            }
            return xTicks.apply(logX ? Math.pow(2, x) : x);
        });
        chart.setCustomYAxisTickLabelsFormatter(yTicks::apply);
        for (Series s : series) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (double[] p : s.points()) {
                if (logX && !(p[0] > 0)) {
                    continue;   // no place on a log axis
                }
                xs.add(logX ? Math.log(p[0]) / Math.log(2) : p[0]);
                ys.add(p[1]);
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries line = chart.addSeries(s.name(), xs, ys);
            line.setMarker(SeriesMarkers.CIRCLE);
        }
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("no data", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    private static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
