package io.lobatto.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.lobatto.bench.BenchCli.Common;
import picocli.CommandLine;

/** The CSV of a report is RFC 4180 (cells with commas, quotes and line breaks quoted), and the --quick preset. */
class ReportCsvTest {

    @Test
    void cellsWithCommasQuotesAndLineBreaksRoundTrip(@TempDir Path dir) throws Exception {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("test", "BS1 copy");
        a.put("timing", "pipelined: launches per sample, one synchronize, divided");
        a.put("note", "says \"why\"\nover two lines");
        Map<String, Object> b = new LinkedHashMap<>();
        b.put("test", "BS2");
        b.put("extra", 1.5);
        Path f = dir.resolve("r.csv");
        Report.writeCsv(f, List.of("test", "timing", "note", "extra"), List.of(a, b));
        try (Reader r = Files.newBufferedReader(f)) {
            List<CSVRecord> records = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get().parse(r).getRecords();
            assertEquals(2, records.size());
            for (CSVRecord rec : records) {
                assertEquals(4, rec.size(), "every record has the header's columns");
            }
            assertEquals("pipelined: launches per sample, one synchronize, divided", records.get(0).get("timing"));
            assertEquals("says \"why\"\nover two lines", records.get(0).get("note"));
            assertEquals("", records.get(0).get("extra"));
            assertEquals("1.5", records.get(1).get("extra"));
            assertEquals("", records.get(1).get("timing"));
        }
    }

    @Test
    void quickPresetLeavesExplicitOptionsAlone() {
        BenchCli.All all = new BenchCli.All();
        CommandLine cl = new CommandLine(all);
        CommandLine.ParseResult pr = cl.parseArgs("--quick", "--dofs", "5000", "-b", "cpu");
        Quick.apply(all.c, pr);
        Common c = all.c;
        assertEquals(5000, c.dofs);
        assertEquals(3, c.reps);
        assertEquals(8, c.nMax);
        assertEquals(20, c.iterations);
        assertEquals(32L << 20, c.maxBytes);
    }
}
