package io.jccl.cli.plot;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** The one look and the one way of writing every chart the CLI draws ({@link LinePlot}, {@code jccl sim --plot}). */
public final class Charts {
    private Charts() {
    }

    /**
     * @return an empty line chart: legend in a row below it, white background, markers of 5 pixels, y from zero (no
     *         exaggerated differences)
     */
    public static XYChart newChart(int width, int height, String title, String xTitle, String yTitle) {
        System.setProperty("java.awt.headless", "true");   // before AWT loads: no display needed
        XYChart chart = new XYChartBuilder().width(width).height(height).title(title).xAxisTitle(xTitle)
                .yAxisTitle(yTitle).build();
        Styler styler = chart.getStyler();
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setLegendLayout(Styler.LegendLayout.Horizontal);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setMarkerSize(5);
        chart.getStyler().setYAxisMin(0.0);
        return chart;
    }

    /**
     * Writes {@code chart} as PNG to {@code file}, whole or not at all: through a temporary file beside it (of the
     * default permissions, not {@code Files.createTempFile}'s owner-only ones) moved into place. Creates the
     * directory if missing.
     */
    public static void writePng(XYChart chart, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path tmp = parent.resolve("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                BitmapEncoder.saveBitmap(chart, out, BitmapEncoder.BitmapFormat.PNG);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
