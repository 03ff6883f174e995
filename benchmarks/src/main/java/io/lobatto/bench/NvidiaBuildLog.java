package io.lobatto.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One kernel's row of kernel-info on NVIDIA, read from the lines of {@link OpenClBuildReport}: registers, stack and
 * spill bytes from ptxas' lines in the build log ({@code -cl-nv-verbose}), the work-group limit, local and private
 * memory the driver reports.
 */
final class NvidiaBuildLog {

    private static final Pattern REGISTERS = Pattern.compile("Used (\\d+) registers");
    private static final Pattern FRAME = Pattern.compile("(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads");
    private static final Pattern KERNEL = Pattern.compile("work-group size (\\d+), multiple \\d+, private (\\d+) B, local (\\d+) B");

    private NvidiaBuildLog() {
    }

    /** The row of kernel {@code label} (degree 0: it does not depend on N) from its report lines; absent values are null. */
    static Map<String, Object> row(String label, int degree, List<String> report) {
        String text = String.join("\n", report);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kernel", label);
        m.put("N", degree == 0 ? null : degree);
        Matcher r = REGISTERS.matcher(text);
        m.put("registers", r.find() ? Integer.parseInt(r.group(1)) : null);
        Matcher f = FRAME.matcher(text);
        boolean frame = f.find();
        m.put("stack_bytes", frame ? Integer.parseInt(f.group(1)) : null);
        m.put("spill_store_bytes", frame ? Integer.parseInt(f.group(2)) : null);
        m.put("spill_load_bytes", frame ? Integer.parseInt(f.group(3)) : null);
        Matcher k = KERNEL.matcher(text);
        boolean kernel = k.find();
        m.put("kernel_work_group_size", kernel ? Integer.parseInt(k.group(1)) : null);
        m.put("private_bytes", kernel ? Long.parseLong(k.group(2)) : null);
        m.put("local_bytes", kernel ? Long.parseLong(k.group(3)) : null);
        m.put("build_failed", text.contains("build failed"));
        return m;
    }

    /** Writes {@code <prefix>.json} (metadata and rows) and {@code <prefix>.csv}. */
    static void write(List<Map<String, Object>> rows, Map<String, Object> meta, Path prefix) throws IOException {
        Path dir = prefix.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Map<String, Object> all = new LinkedHashMap<>(meta);
        all.put("rows", rows);
        Files.writeString(Path.of(prefix + ".json"), Json.write(all), StandardCharsets.UTF_8);
        if (!rows.isEmpty()) {
            Report.writeCsv(Path.of(prefix + ".csv"), new ArrayList<>(rows.get(0).keySet()), rows);
        }
    }
}
