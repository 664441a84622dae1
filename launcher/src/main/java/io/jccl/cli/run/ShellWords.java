package io.jccl.cli.run;

import java.util.ArrayList;
import java.util.List;

/** Splitting a launch-agent setting into words, and quoting words for a POSIX shell on a remote host. */
final class ShellWords {
    private ShellWords() {
    }

    /**
     * Splits like a POSIX shell does for plain words and quotes: whitespace separates, {@code '...'} and
     * {@code "..."} group, a backslash escapes the next character outside single quotes. No expansions.
     *
     * @throws IllegalArgumentException for an unclosed quote or nothing at all
     */
    static List<String> split(String text) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quote == '\'') {
                if (c == '\'') {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (quote == '"') {
                if (c == '"') {
                    quote = 0;
                } else if (c == '\\' && i + 1 < text.length() && "\"\\$`".indexOf(text.charAt(i + 1)) >= 0) {
                    w.append(text.charAt(++i));
                } else {
                    w.append(c);
                }
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else {
                inWord = true;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '\\' && i + 1 < text.length()) {
                    w.append(text.charAt(++i));
                } else {
                    w.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unclosed " + quote + " in '" + text + "'");
        }
        if (inWord) {
            words.add(w.toString());
        }
        if (words.isEmpty()) {
            throw new IllegalArgumentException("the launch agent is empty");
        }
        return words;
    }

    /** @return {@code word} quoted for a POSIX shell: bare when it is plainly safe, else in single quotes */
    static String quote(String word) {
        if (!word.isEmpty() && word.matches("[A-Za-z0-9_./:=@%+,-]+")) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** @return the words quoted and joined by spaces */
    static String join(List<String> words) {
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            sb.append(sb.isEmpty() ? "" : " ").append(quote(w));
        }
        return sb.toString();
    }
}
