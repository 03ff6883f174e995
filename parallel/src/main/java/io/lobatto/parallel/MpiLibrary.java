package io.lobatto.parallel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The downcall handles of the MPI functions Lobatto uses, bound once to the loaded {@code libmpi.so}: the C
 * prototypes of the MPI standard, with the handle types laid out as {@link OpenMpiAbi} says. Raw: the
 * {@link MpiCommunicator} checks arguments and return codes.
 */
final class MpiLibrary {

    private static MpiLibrary instance;

    final OpenMpiAbi abi;
    final MethodHandle init;          // int MPI_Init(int *argc, char ***argv)
    final MethodHandle initialized;   // int MPI_Initialized(int *flag)
    final MethodHandle finalizeMpi;   // int MPI_Finalize(void)
    final MethodHandle finalized;     // int MPI_Finalized(int *flag)
    final MethodHandle commRank;      // int MPI_Comm_rank(MPI_Comm, int *)
    final MethodHandle commSize;      // int MPI_Comm_size(MPI_Comm, int *)
    final MethodHandle allreduce;     // int MPI_Allreduce(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm)
    final MethodHandle allgatherv;    // int MPI_Allgatherv(const void *, int, MPI_Datatype, void *, const int[], const int[], MPI_Datatype, MPI_Comm)
    final MethodHandle isend;         // int MPI_Isend(const void *, int, MPI_Datatype, int dest, int tag, MPI_Comm, MPI_Request *)
    final MethodHandle irecv;         // int MPI_Irecv(void *, int, MPI_Datatype, int source, int tag, MPI_Comm, MPI_Request *)
    final MethodHandle waitall;       // int MPI_Waitall(int, MPI_Request *, MPI_Status *)
    final MethodHandle barrier;       // int MPI_Barrier(MPI_Comm)

    @SuppressWarnings("restricted") // the library lookup: the module runs with --enable-native-access
    private MpiLibrary() {
        SymbolLookup mpi = SymbolLookup.libraryLookup(OpenMpiAbi.library(), Arena.global());
        this.abi = new OpenMpiAbi(mpi);
        Linker linker = Linker.nativeLinker();
        var h = OpenMpiAbi.HANDLE;
        init = bind(linker, mpi, "MPI_Init", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        initialized = bind(linker, mpi, "MPI_Initialized", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        finalizeMpi = bind(linker, mpi, "MPI_Finalize", FunctionDescriptor.of(JAVA_INT));
        finalized = bind(linker, mpi, "MPI_Finalized", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        commRank = bind(linker, mpi, "MPI_Comm_rank", FunctionDescriptor.of(JAVA_INT, h, ADDRESS));
        commSize = bind(linker, mpi, "MPI_Comm_size", FunctionDescriptor.of(JAVA_INT, h, ADDRESS));
        allreduce = bind(linker, mpi, "MPI_Allreduce", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, h, h, h));
        allgatherv = bind(linker, mpi, "MPI_Allgatherv",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, h, ADDRESS, ADDRESS, ADDRESS, h, h));
        isend = bind(linker, mpi, "MPI_Isend", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, h, JAVA_INT, JAVA_INT, h, ADDRESS));
        irecv = bind(linker, mpi, "MPI_Irecv", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, h, JAVA_INT, JAVA_INT, h, ADDRESS));
        waitall = bind(linker, mpi, "MPI_Waitall", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        barrier = bind(linker, mpi, "MPI_Barrier", FunctionDescriptor.of(JAVA_INT, h));
    }

    /** The bindings, loading {@code libmpi.so} on first use. */
    static synchronized MpiLibrary get() {
        if (instance == null) {
            instance = new MpiLibrary();
        }
        return instance;
    }

    @SuppressWarnings("restricted") // the downcall handles: the module runs with --enable-native-access
    private static MethodHandle bind(Linker linker, SymbolLookup mpi, String name, FunctionDescriptor fd) {
        MemorySegment f = mpi.find(name).orElseThrow(() -> new MpiException("libmpi has no function " + name));
        return linker.downcallHandle(f, fd);
    }

    /** Throws unless {@code code} is MPI_SUCCESS (0). */
    static void check(int code, String call) {
        if (code != 0) {
            throw new MpiException(call + " returned MPI error code " + code + " (MPI_SUCCESS is 0)");
        }
    }
}
