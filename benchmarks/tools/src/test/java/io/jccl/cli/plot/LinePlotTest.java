package io.jccl.cli.plot;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The chart behind {@code perf --plot} and {@code bench loss --plot}: its size, its log2 axis, its file. */
class LinePlotTest {
    @Test
    void writesAPngOfTheSizeAskedIntoANewDirectoryAndLeavesNoTemporary(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("sub").resolve("chart.png");
        new LinePlot("t", "size", "GB/s").logX(true).xTickFormat(v -> Math.round(v) + "B")
                .series("a", List.of(new double[] {8, 1}, new double[] {1024, 2}, new double[] {1 << 20, 3}))
                .series("b", List.of(new double[] {0, 5}, new double[] {64, 4}))   // x = 0: skipped on a log axis
                .writePng(png, 900, 560);
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(900);
        assertThat(img.getHeight()).isEqualTo(560);
        try (Stream<Path> files = Files.list(png.getParent())) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("chart.png");
        }
    }

    @Test
    void aLog2AxisPlotsLog2OfXAndLabelsTicksWithTheValue() {
        LinePlot p = new LinePlot("t", "x", "y").logX(true).xTickFormat(v -> String.valueOf(Math.round(v)))
                .series("a", List.of(new double[] {-1, 1}, new double[] {4, 2}, new double[] {1024, 3}));
        var chart = p.chart(400, 300);
        double[] xs = chart.getSeriesMap().get("a").getXData();
        assertThat(xs).containsExactly(2.0, 10.0);
    }

    @Test
    void aChartWithoutDataIsStillWritten(@TempDir Path dir) throws IOException {
        Path png = dir.resolve("empty.png");
        new LinePlot("t", "x", "y").series("a", List.of()).writePng(png, 300, 200);
        assertThat(ImageIO.read(png.toFile()).getWidth()).isEqualTo(300);
    }
}
