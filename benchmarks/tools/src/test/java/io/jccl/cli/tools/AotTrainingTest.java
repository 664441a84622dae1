package io.jccl.cli.tools;

import io.jccl.cli.tools.CliJvm.Run;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real training run, tiny ({@code aot-train --quick --transports aeron-ipc,tcp}: two JVMs, a few collectives;
 * aeron-ipc made impossible, so that it is left out and tcp alone trains): under {@code -XX:AOTCacheOutput} it makes a cache that a
 * JVM with the same flags and class path maps ({@code -XX:AOTMode=on}) and loads JCCL's classes from. Once a jar changes, the JVM cannot use the cache: it runs
 * without it, and with the options {@code ./jccl} gives ({@code -Xlog:aot*=off,cds*=off}) says nothing about it.
 * The class path is made of jars, as {@code ./jccl}'s is: a JVM makes no AOT cache with classes from a directory.
 */
@Tag("integration")
class AotTrainingTest {
    @TempDir
    Path tmp;

    /** This JVM's class path with every directory packed into a jar. */
    private String jarClassPath() throws IOException {
        List<String> out = new ArrayList<>();
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                Path jar = tmp.resolve("cp").resolve((i++) + "-" + p.getParent().getParent().getFileName() + "-"
                        + p.getFileName() + ".jar");
                Files.createDirectories(jar.getParent());
                packInto(p, jar);
                out.add(jar.toString());
            } else if (Files.exists(p)) {
                out.add(entry);
            }
        }
        return String.join(File.pathSeparator, out);
    }

    private static void packInto(Path dir, Path jar) throws IOException {
        try (OutputStream os = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(os);
             Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                j.putNextEntry(new JarEntry(dir.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, j);
                j.closeEntry();
            }
        }
    }

    private Run java(List<String> options, String classPath, String... args) throws Exception {
        return java(Map.of(), options, classPath, args);
    }

    private Run java(Map<String, String> env, List<String> options, String classPath, String... args)
            throws Exception {
        return CliJvm.run(tmp, env, options, classPath, 300, args);
    }

    @Test
    void aTinyTrainingMakesACacheThatJvmsLoadJcclFromAndAStaleOneIsIgnoredQuietly() throws Exception {
        String cp = jarClassPath();
        Path cache = tmp.resolve("jccl.aot");
        // aeron-ipc cannot run here (its driver directory would be inside a file): it is left out, tcp trains.
        Path file = Files.writeString(tmp.resolve("a-file"), "not a directory");
        Run train = java(Map.of("JCCL_AERON_IPC_DIR", file.resolve("aeron").toString()),
                List.of("-XX:AOTCacheOutput=" + cache), cp, "aot-train", "--quick", "--transports", "aeron-ipc,tcp",
                "--time-limit", "240");
        assertThat(train.code()).as("%s", train).isZero();
        assertThat(train.lines()).as("%s", train).anyMatch(l -> l.startsWith("jccl aot-train: aeron-ipc left out: "))
                .anyMatch(l -> l.startsWith("jccl aot-train: trained over tcp in "));
        assertThat(cache).isNotEmptyFile();

        Run use = java(List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:class+load=info"), cp, "version");
        assertThat(use.code()).as("%s", use).isZero();
        assertThat(use.lines()).as("%s", use).anyMatch(l -> l.contains("io.jccl.cli.Main source: shared objects file"));

        // Rebuilt jars: the JVM checks each jar's size and time and does not use the cache.
        Path firstJar = Path.of(cp.split(File.pathSeparator)[0]);
        Files.setLastModifiedTime(firstJar, FileTime.fromMillis(Files.getLastModifiedTime(firstJar).toMillis()
                + 10_000));
        Run loud = java(List.of("-XX:AOTCache=" + cache), cp, "version");
        assertThat(loud.code()).as("%s", loud).isZero();
        assertThat(loud.lines()).as("what the JVM says by default: %s", loud).anyMatch(l -> l.contains("[aot]"));
        Run quiet = java(List.of("-XX:AOTCache=" + cache, "-Xlog:aot*=off,cds*=off"), cp, "version");
        assertThat(quiet.code()).as("%s", quiet).isZero();
        assertThat(quiet.lines()).as("%s", quiet).first().asString().startsWith("JCCL ");
        assertThat(quiet.lines()).as("%s", quiet).noneMatch(l -> l.contains("aot") || l.contains("AOT"));
    }
}
