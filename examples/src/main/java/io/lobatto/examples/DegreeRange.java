package io.lobatto.examples;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine;

/** A range of polynomial degrees {@code lo..hi} (or one degree {@code n}), as {@code --sweep} takes it. */
record DegreeRange(int lo, int hi) {

    private static final Pattern RANGE = Pattern.compile("\\s*(\\d{1,3})\\s*(?:\\.\\.\\s*(\\d{1,3})\\s*)?");

    static DegreeRange parse(String s) {
        Matcher m = RANGE.matcher(s == null ? "" : s);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a degree range lo..hi (e.g. 1..10) or one degree, got '" + s + "'");
        }
        int lo = Integer.parseInt(m.group(1));
        int hi = m.group(2) == null ? lo : Integer.parseInt(m.group(2));
        if (lo > hi) {
            throw new IllegalArgumentException("the range " + s + " is empty: write lo..hi with lo <= hi (e.g. 1..10)");
        }
        return new DegreeRange(lo, hi);
    }

    /** picocli's converter: a bad range is a parameter error ("Invalid value for option '--sweep': ..."). */
    static final class Converter implements CommandLine.ITypeConverter<DegreeRange> {
        @Override
        public DegreeRange convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException ex) {
                throw new CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }
}
