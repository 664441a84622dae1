package io.jccl.cli.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/architecture.md matches the tree: every package of main code in every module is named there (in backticks),
 * and every {@code io.jccl...} package it names exists. (This module is built last, so the whole tree is here; the
 * test reads source directories, not classes.)
 */
class ArchitectureDocTest {
    private static final Path ROOT = Path.of("..", "..").toAbsolutePath().normalize();
    private static final Pattern NAMED_PACKAGE = Pattern.compile("`(io\\.jccl(?:\\.[a-z][a-z0-9]*)*)`");

    @Test
    void everyMainPackageIsDescribedAndEveryDescribedPackageExists() throws IOException {
        String doc = Files.readString(ROOT.resolve("docs/architecture.md"));
        Set<String> packages = mainPackages();
        assertThat(packages).as("main packages found under %s", ROOT).contains("io.jccl", "io.jccl.cli",
                "io.jccl.metaroce.protocol");
        Set<String> named = new TreeSet<>();
        Matcher m = NAMED_PACKAGE.matcher(doc);
        while (m.find()) {
            named.add(m.group(1));
        }
        assertThat(packages).as("packages docs/architecture.md does not name").isSubsetOf(named);
        assertThat(named).as("packages docs/architecture.md names that are not in the tree").isSubsetOf(packages);
    }

    private static Set<String> mainPackages() throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.toString().contains("/target") && !f.toString().contains("/.git/"))
                    .forEach(f -> {
                        String path = ROOT.relativize(f).toString().replace('\\', '/');
                        int main = path.indexOf("/src/main/java/");
                        if (main >= 0) {
                            String rel = path.substring(main + "/src/main/java/".length());
                            packages.add(rel.substring(0, rel.lastIndexOf('/')).replace('/', '.'));
                        }
                    });
        }
        return packages;
    }
}
