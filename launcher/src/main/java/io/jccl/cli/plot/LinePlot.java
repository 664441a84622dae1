package io.jccl.cli.plot;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart of several named series, with a title, axis labels, a legend and an optional log2 x axis, drawn
 * headless ({@code java.awt.headless=true}) and written as PNG. Used by {@code jccl perf --plot}.
 */
public final class LinePlot {
    private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
        new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f)};

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
    private DoubleFunction<String> xTicks = v -> format(v);
    private DoubleFunction<String> yTicks = v -> format(v);
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
     * Places the x ticks at these values instead of spreading them evenly: for categories drawn at positions 0, 1,
     * 2, ... with {@link #xTickFormat} naming each (a linear axis only).
     *
     * @param values where the ticks go, inside the data's x range
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
     * Draws the chart and writes it as PNG.
     *
     * @param file   where
     * @param width  pixels
     * @param height pixels
     * @throws IOException when it cannot be written
     */
    public void writePng(Path file, int width, int height) throws IOException {
        BufferedImage img = render(width, height);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!ImageIO.write(img, "png", file.toFile())) {
            throw new IOException("no PNG writer");
        }
    }

    /**
     * @param width  pixels
     * @param height pixels
     * @return the chart
     */
    public BufferedImage render(int width, int height) {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            draw(g, width, height);
        } finally {
            g.dispose();
        }
        return img;
    }

    private double tx(double x) {
        return logX ? Math.log(x) / Math.log(2) : x;
    }

    private void draw(Graphics2D g, int w, int h) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        g.setFont(font);
        FontMetrics fm = g.getFontMetrics();
        int left = 70;
        int right = 20;
        int top = 40;
        int bottom = 55;
        int pw = w - left - right;
        int ph = h - top - bottom;

        double minX = Double.POSITIVE_INFINITY;
        double maxX = Double.NEGATIVE_INFINITY;
        double maxY = 0;
        for (Series s : series) {
            for (double[] p : s.points()) {
                if (logX && p[0] <= 0) {
                    continue;
                }
                minX = Math.min(minX, tx(p[0]));
                maxX = Math.max(maxX, tx(p[0]));
                maxY = Math.max(maxY, p[1]);
            }
        }
        if (minX > maxX) {
            minX = 0;
            maxX = 1;
        }
        if (minX == maxX) {
            minX -= 1;
            maxX += 1;
        }
        double yStep = niceStep(maxY > 0 ? maxY : 1);
        double yTop = Math.ceil((maxY > 0 ? maxY : 1) / yStep) * yStep;
        double x0 = minX;
        double x1 = maxX;

        g.setColor(Color.BLACK);
        Font bold = font.deriveFont(Font.BOLD, 14f);
        g.setFont(bold);
        g.drawString(title, left + (pw - g.getFontMetrics().stringWidth(title)) / 2, top - 15);
        g.setFont(font);

        // y grid and ticks
        for (double y = 0; y <= yTop + yStep / 2; y += yStep) {
            int py = top + ph - (int) Math.round(y / yTop * ph);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(left, py, left + pw, py);
            g.setColor(Color.BLACK);
            String t = yTicks.apply(y);
            g.drawString(t, left - 6 - fm.stringWidth(t), py + fm.getAscent() / 2 - 1);
        }
        // x ticks: as given, else every integer power of two on a log axis (thinned to fit), else 5 steps
        List<Double> ticks = new ArrayList<>();
        if (xTickValues != null && !logX) {
            ticks.addAll(xTickValues);
        } else if (logX) {
            int span = (int) Math.ceil(x1) - (int) Math.floor(x0);
            int every = Math.max(1, span / 10 + (span % 10 == 0 ? 0 : 1));
            for (int e = (int) Math.ceil(x0); e <= x1; e += every) {
                ticks.add((double) e);
            }
        } else {
            for (int i = 0; i <= 5; i++) {
                ticks.add(x0 + (x1 - x0) * i / 5);
            }
        }
        for (double t : ticks) {
            int px = left + (int) Math.round((t - x0) / (x1 - x0) * pw);
            g.setColor(new Color(0xe0e0e0));
            g.drawLine(px, top, px, top + ph);
            g.setColor(Color.BLACK);
            String s = xTicks.apply(logX ? Math.pow(2, t) : t);
            g.drawString(s, px - fm.stringWidth(s) / 2, top + ph + fm.getAscent() + 4);
        }
        g.setColor(Color.BLACK);
        g.drawRect(left, top, pw, ph);
        g.drawString(xLabel, left + (pw - fm.stringWidth(xLabel)) / 2, h - 12);
        AffineTransform saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        g.drawString(yLabel, -(top + (ph + fm.stringWidth(yLabel)) / 2), 16);
        g.setTransform(saved);

        // series
        g.setStroke(new BasicStroke(2f));
        int legendY = top + 8;
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            g.setColor(PALETTE[i % PALETTE.length]);
            int prevX = Integer.MIN_VALUE;
            int prevY = 0;
            for (double[] p : s.points()) {
                if (logX && p[0] <= 0) {
                    continue;
                }
                int px = left + (int) Math.round((tx(p[0]) - x0) / (x1 - x0) * pw);
                int py = top + ph - (int) Math.round(p[1] / yTop * ph);
                g.fillOval(px - 3, py - 3, 6, 6);
                if (prevX != Integer.MIN_VALUE) {
                    g.drawLine(prevX, prevY, px, py);
                }
                prevX = px;
                prevY = py;
            }
            int lx = left + 12;
            g.drawLine(lx, legendY + 6 + i * 16, lx + 20, legendY + 6 + i * 16);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), lx + 26, legendY + 10 + i * 16);
        }
    }

    /** A 1, 2 or 5 times a power of ten that splits {@code max} into 4 to 10 steps. */
    static double niceStep(double max) {
        double raw = max / 5;
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double m = raw / p;
        return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }

    private static String format(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
