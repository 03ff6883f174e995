package io.lobatto.parallel;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything in the MPI bindings that is specific to one MPI implementation, here Open MPI (4.x and 5.x, whose
 * ABI has the same shape): where {@code libmpi.so} is, and how the predefined handles look. Open MPI's handles
 * are pointers, and {@code MPI_COMM_WORLD}, {@code MPI_DOUBLE}, {@code MPI_SUM} and {@code MPI_MAX} are the
 * addresses of the exported objects {@code ompi_mpi_comm_world}, {@code ompi_mpi_double}, {@code ompi_mpi_op_sum}
 * and {@code ompi_mpi_op_max}; {@code MPI_Request} is a pointer and {@code MPI_STATUSES_IGNORE} is NULL.
 *
 * <p>Supported: Open MPI only. MPICH and its derivatives (Intel MPI, Cray MPICH, MVAPICH) use {@code int}
 * handles with compile-time values: supporting them means a second class like this one (handle layout and
 * values), not changes elsewhere. The MPI 5.0 standard ABI, once implementations ship it, would replace both.
 */
final class OpenMpiAbi {

    /** Environment variable naming the {@code libmpi.so} to load, overriding the search. */
    static final String LIBRARY_ENV = "LOBATTO_MPI_LIBRARY";

    /** Candidate libraries, in search order (Debian/Ubuntu multiarch, then the usual prefixes). */
    private static final List<String> CANDIDATES = List.of(
            "/usr/lib/x86_64-linux-gnu/libmpi.so.40", "/usr/lib/x86_64-linux-gnu/libmpi.so",
            "/usr/lib/aarch64-linux-gnu/libmpi.so.40", "/usr/lib64/openmpi/lib/libmpi.so.40",
            "/usr/local/lib/libmpi.so.40", "/opt/openmpi/lib/libmpi.so.40");

    /** The layout of a handle (MPI_Comm, MPI_Datatype, MPI_Op): a pointer. */
    static final AddressLayout HANDLE = ValueLayout.ADDRESS;

    /** The layout of an MPI_Request: a pointer. */
    static final AddressLayout REQUEST = ValueLayout.ADDRESS;

    /** MPI_STATUSES_IGNORE. */
    static final MemorySegment STATUSES_IGNORE = MemorySegment.NULL;

    final MemorySegment commWorld;
    final MemorySegment doubleType;
    final MemorySegment opSum;
    final MemorySegment opMax;

    OpenMpiAbi(SymbolLookup mpi) {
        this.commWorld = handle(mpi, "ompi_mpi_comm_world", "MPI_COMM_WORLD");
        this.doubleType = handle(mpi, "ompi_mpi_double", "MPI_DOUBLE");
        this.opSum = handle(mpi, "ompi_mpi_op_sum", "MPI_SUM");
        this.opMax = handle(mpi, "ompi_mpi_op_max", "MPI_MAX");
    }

    private static MemorySegment handle(SymbolLookup mpi, String symbol, String name) {
        return mpi.find(symbol).orElseThrow(() -> new MpiException("the loaded libmpi has no symbol " + symbol + " (" + name
                + "): only Open MPI is supported; set " + LIBRARY_ENV + " to Open MPI's libmpi.so"));
    }

    /** The library to load: {@value #LIBRARY_ENV} if set, else the first candidate that exists. */
    static Path library() {
        String env = System.getenv(LIBRARY_ENV);
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env);
            if (!Files.isRegularFile(p)) {
                throw new MpiException(LIBRARY_ENV + " = " + env + " is not a file; give the path of Open MPI's libmpi.so");
            }
            return p;
        }
        List<String> tried = new ArrayList<>();
        for (String c : CANDIDATES) {
            if (Files.exists(Path.of(c))) {
                return Path.of(c);
            }
            tried.add(c);
        }
        throw new MpiException("no Open MPI libmpi.so found (tried " + tried + "); install Open MPI (apt-get install "
                + "openmpi-bin libopenmpi-dev) or set " + LIBRARY_ENV);
    }
}
