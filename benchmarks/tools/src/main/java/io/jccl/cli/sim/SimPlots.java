package io.jccl.cli.sim;

import io.jccl.cli.plot.Charts;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The pictures of {@code jccl sim ... --plot FILE.png}: the flows' completion times as a CDF, throughput over time
 * (across a failure), throughput against loss. Drawn with XChart; written whole or not at all.
 */
final class SimPlots {
    /** Points per line at most: a CDF of 100,000 flows is drawn from this many of them. */
    private static final int MAX_POINTS = 2_000;

    private SimPlots() {
    }

    /** One line of a chart: its name and points. */
    record Line(String name, double[] x, double[] y) {
    }

    /** @return a CDF of {@code sortedFctUs}: the share of flows done by each completion time */
    static Line cdf(String name, double[] sortedFctUs) {
        int n = sortedFctUs.length;
        int points = Math.min(n, MAX_POINTS);
        double[] x = new double[points];
        double[] y = new double[points];
        for (int i = 0; i < points; i++) {
            int at = points == n ? i : (int) ((long) (i + 1) * n / points) - 1;
            x[i] = sortedFctUs[at];
            y[i] = (at + 1.0) / n;
        }
        return new Line(name, x, y);
    }

    /** @return throughput per bucket against the bucket's middle, in µs */
    static Line timeline(String name, double[] gbps, double bucketUs) {
        double[] x = new double[gbps.length];
        for (int i = 0; i < gbps.length; i++) {
            x[i] = (i + 0.5) * bucketUs;
        }
        return new Line(name, x, gbps.clone());
    }

    /**
     * Draws {@code lines} and writes the chart to {@code png} (through a temporary file beside it, moved into place).
     *
     * @param markers  named vertical lines (a failure's time) at these x values; may be empty
     * @param points   named single points drawn as large markers (a published figure); may be empty
     */
    static void write(Path png, String title, String xTitle, String yTitle, List<Line> lines,
                      Map<String, Double> markers, Map<String, double[]> points) throws IOException {
        write(png, title, xTitle, yTitle, lines, markers, points, false);
    }

    /** As above; {@code shareAxis}: the y axis runs from 0 to 1 (a CDF). */
    static void write(Path png, String title, String xTitle, String yTitle, List<Line> lines,
                      Map<String, Double> markers, Map<String, double[]> points, boolean shareAxis)
            throws IOException {
        XYChart chart = Charts.newChart(960, 600, title, xTitle, yTitle);
        chart.getStyler().setXAxisDecimalPattern("#,##0.###");
        chart.getStyler().setYAxisDecimalPattern(shareAxis ? "0.0" : "#,##0.##");
        if (shareAxis) {
            chart.getStyler().setYAxisMax(1.0);
        }
        double top = 0;
        for (Line l : lines) {
            if (l.x().length == 0) {
                continue;
            }
            XYSeries s = chart.addSeries(l.name(), l.x(), l.y());
            s.setMarker(l.x().length > 40 ? SeriesMarkers.NONE : SeriesMarkers.CIRCLE);
            for (double v : l.y()) {
                top = Math.max(top, v);
            }
        }
        for (Map.Entry<String, Double> m : markers.entrySet()) {
            XYSeries s = chart.addSeries(m.getKey(), new double[] {m.getValue(), m.getValue()},
                    new double[] {0, top > 0 ? top * 1.05 : 1});
            s.setMarker(SeriesMarkers.NONE);
            s.setLineColor(Color.GRAY);
            s.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
                    new float[] {6, 4}, 0));
        }
        for (Map.Entry<String, double[]> p : points.entrySet()) {
            XYSeries s = chart.addSeries(p.getKey(), new double[] {p.getValue()[0]}, new double[] {p.getValue()[1]});
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.DIAMOND);
            s.setMarkerColor(Color.BLACK);
        }
        if (chart.getSeriesMap().isEmpty()) {
            throw new IOException("nothing to plot in " + png + ": no flow finished");
        }
        Charts.writePng(chart, png);
    }
}
