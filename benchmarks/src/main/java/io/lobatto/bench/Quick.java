package io.lobatto.bench;

import picocli.CommandLine.ParseResult;

/** The {@code all --quick} preset: small sizes and few repetitions, for a first look on a laptop or CI machine. */
final class Quick {

    private Quick() {
    }

    /** Sets the preset's values in {@code c} for every option not given explicitly on the command line. */
    static void apply(BenchCli.Common c, ParseResult given) {
        if (!given.hasMatchedOption("--reps")) {
            c.reps = 3;
        }
        if (!given.hasMatchedOption("--max-bytes")) {
            c.maxBytes = 32L << 20;
        }
        if (!given.hasMatchedOption("--cache-bytes")) {
            c.cacheBytes = 4L << 20;
        }
        if (!given.hasMatchedOption("--gs-nodes")) {
            c.gsNodes = 200_000;
        }
        if (!given.hasMatchedOption("--dofs")) {
            c.dofs = 100_000;
        }
        if (!given.hasMatchedOption("--n-max")) {
            c.nMax = 8;
        }
        if (!given.hasMatchedOption("--n-step")) {
            c.nStep = 1;
        }
        if (!given.hasMatchedOption("--iterations")) {
            c.iterations = 20;
        }
    }
}
