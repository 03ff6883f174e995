package io.lobatto.backend.aparapi.runtime;

import static org.jocl.CL.CL_KERNEL_LOCAL_MEM_SIZE;
import static org.jocl.CL.CL_KERNEL_PRIVATE_MEM_SIZE;
import static org.jocl.CL.CL_KERNEL_WORK_GROUP_SIZE;
import static org.jocl.CL.clCreateKernel;
import static org.jocl.CL.clEnqueueNDRangeKernel;
import static org.jocl.CL.clGetKernelWorkGroupInfo;
import static org.jocl.CL.clReleaseKernel;
import static org.jocl.CL.clSetKernelArg;

import io.lobatto.core.backend.BackendException;
import org.jocl.CLException;
import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_program;

import java.util.HashMap;
import java.util.Map;

/**
 * One kernel object of a built {@link KernelSource}, with its arguments bound by the Java field names
 * they come from. An argument keeps its value between launches, and setting it to the value it already
 * has costs nothing (each {@code clSetKernelArg} through JOCL costs about 0.9 us on the H100), so a
 * launch pays only for the scalars and buffers that changed. {@link #launch} enqueues and never waits.
 *
 * <p>A kernel of a program built quickly first ({@link ProgramCache#QUICK_FIRST_PROPERTY}) counts the work-items it
 * launches: at {@link ProgramCache#UPGRADE_AFTER_PROPERTY} of them it asks for the optimised program (built in the
 * background), and the launch that reaches twice as many runs the optimised kernel, with every argument bound again
 * (waiting for its build if it is not done). So the swap happens at the same launch in every run, whatever the timing.
 */
public final class ClKernel {

    private final ClContext context;
    private cl_kernel kernel;
    private final String entry;
    private final KernelSource source;
    /** The upgrade of a quick-first build, until the optimised kernel is swapped in (else null). */
    private ProgramCache.Upgrade upgrade;
    private long work;
    private final Map<String, Integer> index = new HashMap<>();
    private final Object[] bound;
    private final long[] globalSize = new long[1];
    private final long[] localSize = new long[1];
    private final int workGroupSize;
    private long launches;
    private long argumentSets;

    ClKernel(ClContext context, cl_program program, String entry, KernelSource source, ProgramCache.Upgrade upgrade) {
        this.context = context;
        this.source = source;
        this.entry = entry;
        this.upgrade = upgrade;
        this.kernel = clCreateKernel(program, entry, null);
        for (int i = 0; i < source.args().size(); i++) {
            index.put(source.args().get(i).name(), i);
        }
        this.bound = new Object[source.args().size()];
        long[] size = new long[1];
        clGetKernelWorkGroupInfo(kernel, context.device().id, CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(size), null);
        this.workGroupSize = (int) size[0];
        if (index.containsKey("passid")) {
            set("passid", 0);
        }
    }

    /** The source this kernel was built from. */
    public KernelSource source() {
        return source;
    }

    /** {@code CL_KERNEL_WORK_GROUP_SIZE}: the largest work-group this built kernel can launch on its device. */
    public int workGroupSize() {
        return workGroupSize;
    }

    /** {@code CL_KERNEL_LOCAL_MEM_SIZE} and {@code CL_KERNEL_PRIVATE_MEM_SIZE} in bytes, for reports. */
    public long[] memoryUse() {
        long[] local = new long[1];
        long[] priv = new long[1];
        clGetKernelWorkGroupInfo(kernel, context.device().id, CL_KERNEL_LOCAL_MEM_SIZE, Sizeof.cl_ulong, Pointer.to(local), null);
        clGetKernelWorkGroupInfo(kernel, context.device().id, CL_KERNEL_PRIVATE_MEM_SIZE, Sizeof.cl_ulong, Pointer.to(priv), null);
        return new long[] {local[0], priv[0]};
    }

    /** Whether this kernel still runs the quick build of a quick-first program (see the class comment). */
    public boolean quick() {
        return upgrade != null;
    }

    /** Launches so far. */
    public long launches() {
        return launches;
    }

    /** clSetKernelArg calls so far from {@code set}, {@code bindIfUsed} and {@code local} (a value already bound is not set again). */
    public long argumentSets() {
        return argumentSets;
    }

    private int arg(String name, KernelSource.Kind kind) {
        Integer i = index.get(name);
        if (i == null) {
            throw new IllegalArgumentException("kernel '" + source.label() + "' has no argument '" + name + "'; it has "
                    + index.keySet());
        }
        return checkKind(i, name, kind);
    }

    private int checkKind(int i, String name, KernelSource.Kind kind) {
        if (source.args().get(i).kind() != kind) {
            throw new IllegalArgumentException("kernel '" + source.label() + "': argument '" + name + "' is "
                    + source.args().get(i).kind() + ", not " + kind);
        }
        return i;
    }

    /**
     * {@link #set(String, ClBuffer)} when the kernel has argument {@code name} (a field its code reads; a variant
     * may read fewer), else nothing.
     */
    public ClKernel bindIfUsed(String name, ClBuffer b) {
        Integer i = index.get(name);
        return i == null ? this : setBuffer(checkKind(i, name, KernelSource.Kind.GLOBAL_BUFFER), name, b);
    }

    /** {@link #set(String, int)} when the kernel has argument {@code name}, else nothing. */
    public ClKernel bindIfUsed(String name, int value) {
        return index.containsKey(name) ? set(name, value) : this;
    }

    /** {@link #set(String, double)} when the kernel has argument {@code name}, else nothing. */
    public ClKernel bindIfUsed(String name, double value) {
        Integer i = index.get(name);
        return i == null ? this : setDouble(checkKind(i, name, KernelSource.Kind.DOUBLE), value);
    }

    /** Binds buffer {@code b} to the {@code __global} argument {@code name}. */
    public ClKernel set(String name, ClBuffer b) {
        return setBuffer(arg(name, KernelSource.Kind.GLOBAL_BUFFER), name, b);
    }

    private ClKernel setBuffer(int i, String name, ClBuffer b) {
        if (b.isClosed() || b.context() != context) {
            throw new IllegalArgumentException("kernel '" + source.label() + "': buffer for '" + name
                    + "' is closed or belongs to another context");
        }
        if (bound[i] != b) {
            clSetKernelArg(kernel, i, Sizeof.cl_mem, Pointer.to(b.mem));
            bound[i] = b;
            argumentSets++;
        }
        return this;
    }

    /** Sets the {@code int} argument {@code name}. */
    public ClKernel set(String name, int value) {
        int i = arg(name, KernelSource.Kind.INT);
        if (!(bound[i] instanceof Integer v) || v != value) {
            clSetKernelArg(kernel, i, Sizeof.cl_int, Pointer.to(new int[] {value}));
            bound[i] = value;
            argumentSets++;
        }
        return this;
    }

    /** Sets the {@code double} argument {@code name}. */
    public ClKernel set(String name, double value) {
        return setDouble(arg(name, KernelSource.Kind.DOUBLE), value);
    }

    private ClKernel setDouble(int i, double value) {
        if (!(bound[i] instanceof Double v) || Double.doubleToRawLongBits(v) != Double.doubleToRawLongBits(value)) {
            clSetKernelArg(kernel, i, Sizeof.cl_double, Pointer.to(new double[] {value}));
            bound[i] = value;
            argumentSets++;
        }
        return this;
    }

    /** Reserves {@code bytes} of local memory per work-group for the {@code __local} argument {@code name}. */
    public ClKernel local(String name, long bytes) {
        int i = arg(name, KernelSource.Kind.LOCAL_BUFFER);
        if (!(bound[i] instanceof Long v) || v != bytes) {
            clSetKernelArg(kernel, i, bytes, null);
            bound[i] = bytes;
            argumentSets++;
        }
        return this;
    }

    /**
     * Enqueues the kernel on {@code groups} work-groups of {@code local} work-items; does not wait.
     * Throws with the kernel, the sizes and the device's limits when the launch is refused.
     */
    public void launch(long groups, int local) {
        if (local < 1 || local > workGroupSize) {
            throw new BackendException("aparapi: kernel '" + source.label() + "' would launch work-groups of " + local
                    + " work-items; the built kernel allows 1.." + workGroupSize + " (CL_KERNEL_WORK_GROUP_SIZE) on "
                    + context.device().name());
        }
        if (groups <= 0) {
            return;
        }
        for (int i = 0; i < bound.length; i++) {
            if (bound[i] == null) {
                throw new IllegalStateException("kernel '" + source.label() + "': argument '"
                        + source.args().get(i).name() + "' was never set");
            }
            if (bound[i] instanceof ClBuffer b && b.isClosed()) {
                throw new IllegalStateException("kernel '" + source.label() + "': buffer of argument '"
                        + source.args().get(i).name() + "' was closed");
            }
        }
        globalSize[0] = groups * local;
        localSize[0] = local;
        if (upgrade != null) {
            advance(globalSize[0]);
        }
        cl_event event = context.launchEvent(source.label());
        try {
            org.jocl.cl_event[] waits = context.launchWaits();
            clEnqueueNDRangeKernel(context.launchQueue(), kernel, 1, null, globalSize, localSize, waits == null ? 0 : waits.length,
                    waits, event);
        } catch (CLException e) {
            throw new BackendException("aparapi: launching kernel '" + source.label() + "' with " + groups
                    + " work-groups of " + local + " on " + context.device().name() + " failed: " + e.getMessage(), e);
        }
        launches++;
    }

    /**
     * Counts {@code items} work-items of a quick-first kernel: asks for the optimised build at its cache's threshold, and
     * swaps it in at twice as many (see the class comment).
     */
    private void advance(long items) {
        work += items;
        long after = upgrade.after();
        if (work < after) {
            return;
        }
        upgrade.request();
        if (work - after < after) {
            return;
        }
        cl_program optimised = upgrade.await();
        upgrade = null;
        if (optimised != null) {
            swap(optimised);
        }
    }

    /**
     * Replaces the kernel object by one of {@code program}, with the arguments bound so far bound again; keeps the quick
     * one when the optimised kernel allows smaller work-groups than those this kernel reported (plans rely on them).
     */
    private void swap(cl_program program) {
        cl_kernel k = clCreateKernel(program, entry, null);
        long[] size = new long[1];
        clGetKernelWorkGroupInfo(k, context.device().id, CL_KERNEL_WORK_GROUP_SIZE, Sizeof.size_t, Pointer.to(size), null);
        if (size[0] < workGroupSize) {
            clReleaseKernel(k);
            ProgramCache.LOG.fine("aparapi: kernel '" + source.label() + "' keeps its quick build: the optimised one allows "
                    + size[0] + " work-items per group, the quick one " + workGroupSize);
            return;
        }
        for (int i = 0; i < bound.length; i++) {
            Object v = bound[i];
            if (v instanceof ClBuffer b) {
                clSetKernelArg(k, i, Sizeof.cl_mem, Pointer.to(b.mem));
            } else if (v instanceof Integer n) {
                clSetKernelArg(k, i, Sizeof.cl_int, Pointer.to(new int[] {n}));
            } else if (v instanceof Double d) {
                clSetKernelArg(k, i, Sizeof.cl_double, Pointer.to(new double[] {d}));
            } else if (v instanceof Long bytes) {
                clSetKernelArg(k, i, bytes, null);          // a __local argument's size
            }
        }
        cl_kernel old = kernel;
        kernel = k;
        clReleaseKernel(old);
    }
}
