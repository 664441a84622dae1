import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes the reduce kernels' Java sources from their templates; the build runs it before compiling
 * ({@code java src/build/KernelGen.java TEMPLATE_DIR OUTPUT_DIR}, a single-file program).
 *
 * <p>Why generated: a kernel class per element type is one loop per operation written against that type's vector
 * class ({@code FloatVector}, {@code IntVector}, ...) and scalar type. The Vector API has no common type to write
 * them against once without boxing or megamorphic calls, so each type gets its own monomorphic copy, written here
 * from one template instead of by hand.
 *
 * <p>A template {@code DIR/a/b/Name.java.template} starts with a header of {@code @@} lines: {@code @@ Class}
 * begins one generated class {@code a/b/Class.java}, the {@code @@ key = value} lines after it are that class's
 * variables (a value in double quotes keeps its outer spaces), and {@code @@ //} starts a comment. In the body,
 * {@code $key$} stands for a variable's value (an unknown key is an error), and the lines {@code #if[key]},
 * {@code #else[key]} and {@code #end[key]} keep the lines between them only where the variable is (or, after
 * {@code #else}, is not) {@code true}. The variable {@code Class} is the class's name. Each class is written only
 * when its text changed, so that an unchanged template does not make the compiler rebuild.
 */
public final class KernelGen {
    private static final Pattern VARIABLE = Pattern.compile("\\$([A-Za-z][A-Za-z0-9]*)\\$");
    private static final Pattern DIRECTIVE = Pattern.compile("#(if|else|end)\\[([A-Za-z][A-Za-z0-9]*)]");
    private static final String SUFFIX = ".java.template";

    private KernelGen() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: java KernelGen.java TEMPLATE_DIR OUTPUT_DIR");
        }
        Path templates = Path.of(args[0]);
        Path output = Path.of(args[1]);
        try (Stream<Path> files = Files.walk(templates)) {
            for (Path template : files.filter(f -> f.toString().endsWith(SUFFIX)).sorted().toList()) {
                Path packageDir = output.resolve(templates.relativize(template.getParent()));
                generate(template, packageDir);
            }
        }
    }

    private static void generate(Path template, Path packageDir) throws IOException {
        List<String> lines = Files.readAllLines(template);
        Map<String, Map<String, String>> classes = new LinkedHashMap<>();
        Map<String, String> current = null;
        int body = 0;
        for (; body < lines.size() && lines.get(body).startsWith("@@"); body++) {
            String entry = lines.get(body).substring(2).trim();
            int equals = entry.indexOf('=');
            if (entry.startsWith("//")) {
                continue;
            }
            if (equals < 0 && !entry.isEmpty()) {
                current = new LinkedHashMap<>(Map.of("Class", entry));
                classes.put(entry, current);
            } else if (equals >= 0) {
                if (current == null) {
                    throw new IllegalArgumentException(template + ": a variable before the first class");
                }
                current.put(entry.substring(0, equals).trim(), unquote(entry.substring(equals + 1).trim()));
            }
        }
        List<String> text = lines.subList(body, lines.size());
        Files.createDirectories(packageDir);
        String source = template.getFileName().toString();
        for (Map.Entry<String, Map<String, String>> generated : classes.entrySet()) {
            String code = "// Generated from " + source + " by src/build/KernelGen.java: edit the template.\n"
                    + expand(text, generated.getValue(), template);
            Path file = packageDir.resolve(generated.getKey() + ".java");
            if (!Files.exists(file) || !Files.readString(file).equals(code)) {
                Files.writeString(file, code);
            }
        }
    }

    /** A value in double quotes keeps its spaces; the quotes go. */
    private static String unquote(String value) {
        boolean quoted = value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"");
        return quoted ? value.substring(1, value.length() - 1) : value;
    }

    /** The template body for one class: directives applied, variables replaced. */
    private static String expand(List<String> text, Map<String, String> variables, Path template) {
        StringBuilder out = new StringBuilder();
        Deque<Boolean> kept = new ArrayDeque<>();
        Deque<String> open = new ArrayDeque<>();
        for (int i = 0; i < text.size(); i++) {
            String line = text.get(i);
            Matcher directive = DIRECTIVE.matcher(line.trim());
            if (directive.matches()) {
                String key = directive.group(2);
                boolean value = "true".equals(variables.get(key));
                switch (directive.group(1)) {
                    case "if" -> {
                        kept.push(value && (kept.isEmpty() || kept.peek()));
                        open.push(key);
                    }
                    case "else" -> {
                        checkOpen(open, key, template, i);
                        kept.pop();
                        kept.push(!value && (kept.isEmpty() || kept.peek()));
                    }
                    default -> {
                        checkOpen(open, key, template, i);
                        kept.pop();
                        open.pop();
                    }
                }
            } else if (kept.isEmpty() || kept.peek()) {
                out.append(substitute(line, variables, template, i)).append('\n');
            }
        }
        if (!open.isEmpty()) {
            throw new IllegalArgumentException(template + ": #if[" + open.peek() + "] not closed");
        }
        return out.toString();
    }

    private static void checkOpen(Deque<String> open, String key, Path template, int line) {
        if (!key.equals(open.peek())) {
            throw new IllegalArgumentException(template + ": body line " + (line + 1) + " closes [" + key
                    + "] but [" + open.peek() + "] is open");
        }
    }

    private static String substitute(String line, Map<String, String> variables, Path template, int number) {
        Matcher variable = VARIABLE.matcher(line);
        StringBuilder out = new StringBuilder();
        while (variable.find()) {
            String value = variables.get(variable.group(1));
            if (value == null) {
                throw new IllegalArgumentException(template + ": body line " + (number + 1) + " uses $"
                        + variable.group(1) + "$, which " + variables.get("Class") + " does not define");
            }
            variable.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return variable.appendTail(out).toString();
    }
}
