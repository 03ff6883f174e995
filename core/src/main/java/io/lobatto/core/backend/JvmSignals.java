package io.lobatto.core.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Whether this JVM survives loading PoCL, the CPU OpenCL driver.
 *
 * <p>When PoCL initialises a device it calls LLVM's {@code RemoveFileOnSignal}, and every program build
 * does again; LLVM then installs its own handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGUSR2 and more,
 * with {@code SA_RESETHAND}, in place of the JVM's (PoCL adds one for SIGFPE). The JVM takes SIGSEGV on
 * purpose (safepoint polls, implicit null checks), and SIGFPE for integer division by zero. The first such
 * signal resets the handler to the default action until LLVM's handler has put the JVM's back; a second
 * thread that faults in that window kills the process ("Segmentation fault", exit 139, no hs_err file),
 * typically at a safepoint or at exit. And PoCL's SIGFPE handler steps over a faulting division, so
 * {@code x / 0} in compiled Java returns a value instead of throwing. With the JDK's {@code libjsig.so}
 * preloaded the JVM keeps its handlers and chains the others, and none of this happens.
 */
public final class JvmSignals {

    private JvmSignals() {
    }

    /** The JDK's signal-chaining library, to be named in {@code LD_PRELOAD}. */
    public static Path libjsig() {
        return Paths.get(System.getProperty("java.home"), "lib", "libjsig.so");
    }

    /**
     * One line saying why loading OpenCL would break this JVM, or null when it is safe: PoCL is registered
     * with the OpenCL ICD loader and {@code libjsig.so} is not loaded. Touches no native code (it reads
     * {@code /proc/self/maps} and the ICD files). Null off Linux, where this check does not apply.
     */
    public static String openClUnsafeReason() {
        return unsafeReason(Paths.get("/proc/self/maps"), icdFiles());
    }

    static String unsafeReason(Path maps, List<Path> icdFiles) {
        if (!Files.isReadable(maps)) {
            return null;
        }
        try {
            String mapped = Files.readString(maps);
            if (mapped.contains("/libjsig.so")) {
                return null;
            }
            String pocl = mapped.contains("/libpocl") ? "libpocl (already loaded)" : null;
            for (Path icd : icdFiles) {
                if (pocl == null && isPocl(icd)) {
                    pocl = icd.toString();
                }
            }
            if (pocl == null) {
                return null;
            }
            return "PoCL (" + pocl + ") would replace the JVM's SIGSEGV/SIGFPE handlers and crash it at random; "
                    + "run java with LD_PRELOAD=" + libjsig() + " (the JDK's signal chaining keeps the JVM's handlers)";
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isPocl(Path icd) {
        if (icd.getFileName() != null && icd.getFileName().toString().toLowerCase(Locale.ROOT).contains("pocl")) {
            return true;
        }
        try {
            return Files.isRegularFile(icd) && Files.size(icd) < 4096
                    && Files.readString(icd).toLowerCase(Locale.ROOT).contains("pocl");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The files and libraries the ICD loader would read: {@code OCL_ICD_FILENAMES} (libraries),
     * {@code OCL_ICD_VENDORS} (a directory of .icd files, or one file), else {@code /etc/OpenCL/vendors}.
     */
    static List<Path> icdFiles() {
        List<Path> out = new ArrayList<>();
        String filenames = System.getenv("OCL_ICD_FILENAMES");
        if (filenames != null && !filenames.isBlank()) {
            for (String f : filenames.split(":")) {
                if (!f.isBlank()) {
                    out.add(Paths.get(f.trim()));
                }
            }
        }
        String vendors = System.getenv("OCL_ICD_VENDORS");
        Path dir = Paths.get(vendors == null || vendors.isBlank() ? "/etc/OpenCL/vendors" : vendors.trim());
        if (Files.isDirectory(dir)) {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(p -> p.toString().endsWith(".icd")).sorted().forEach(out::add);
            } catch (IOException | RuntimeException e) {
                // an unreadable vendor directory: nothing to add
            }
        } else {
            out.add(dir);
        }
        return out;
    }
}
