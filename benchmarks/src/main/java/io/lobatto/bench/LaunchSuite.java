package io.lobatto.bench;

import static org.jocl.CL.*;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;

import org.jocl.Pointer;
import org.jocl.Sizeof;
import org.jocl.cl_command_queue;
import org.jocl.cl_context;
import org.jocl.cl_event;
import org.jocl.cl_kernel;
import org.jocl.cl_mem;
import org.jocl.cl_program;


import io.lobatto.backend.aparapi.AparapiBackend;
import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/**
 * Where the per-launch cost T0 of the streaming model T(B) = T0 + B/Wmax goes on an OpenCL device: the
 * same trivial kernel (256 work-items writing one double each) launched raw through JOCL, beside the
 * backend's own launches, so that the differences isolate one cost each.
 * <ul>
 * <li>{@code raw-finish}: set 3 arguments, enqueue, clFinish (a raw launch and wait, the floor of a launch through Aparapi's own runtime);</li>
 * <li>{@code raw-event-wait}: enqueue with an event, clWaitForEvents, release: the pattern aparapi-native's
 * runKernelJNI uses after every execute and between the passes of a multi-pass execute;</li>
 * <li>{@code raw-event-wait-49args}: the same with 49 clSetKernelArg per launch (the device program's
 * argument count), i.e. the OpenCL calls of one Aparapi execute without the JNI;</li>
 * <li>{@code raw-pipelined}: enqueue only, one clFinish per 64 launches (what Aparapi cannot do);</li>
 * <li>{@code backend-fill-pipelined}: {@link Backend#fill} of 256 entries, many calls and one synchronize
 * (the backend's own JOCL runtime; compare with {@code raw-pipelined});</li>
 * <li>{@code backend-fill-finish}: the same with a synchronize per call (compare with {@code raw-finish});</li>
 * <li>{@code backend-dot}: {@link Backend#dot} of 256 entries, a launch plus the read of the partials.</li>
 * </ul>
 * Speed figures only: this suite asserts nothing about correctness.
 */
final class LaunchSuite {

    static final int GLOBAL = 256;
    private static final int LOCAL = 64;
    private static final int EXTRA_ARGS = 46;

    private LaunchSuite() {
    }

    /** Runs the suite; needs an {@link AparapiBackend} (records a skip otherwise). */
    static void run(Backend be, int reps, Report report) {
        if (!(be instanceof AparapiBackend ab)) {
            report.meta("skipped", "the launch suite needs the aparapi backend, not " + be.name());
            report.out().println("launch: skipped (needs the aparapi backend)");
            return;
        }
        int samples = Math.max(5, reps);
        int inner = 200;
        raw(ab.device().name(), samples, inner, report);
        try (DeviceVector v = be.allocate(GLOBAL); DeviceVector w = be.allocate(GLOBAL)) {
            Timing.Samples s = Timing.measure(be, inner, samples, inner, () -> be.fill(v, 1.0));
            row(report, "backend-fill-pipelined", "Backend.fill of 256 entries, many calls, one synchronize; per call", s, 1);
            Timing.Samples f = time(i -> {
                be.fill(v, i);
                be.synchronize();
            }, samples, inner);
            row(report, "backend-fill-finish", "Backend.fill of 256 entries and synchronize", f, 1);
            Timing.Samples d = time(i -> be.dot(v, w), samples, inner);
            row(report, "backend-dot", "Backend.dot of 256 entries: launch + read of the partials", d, 1);
        }
        summary(report);
    }

    // ------------------------------------------------------------------ raw OpenCL through JOCL

    private static final String SOURCE;

    static {
        StringBuilder sb = new StringBuilder("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                + "__kernel void few(__global double *y, const int n, const double a) {\n"
                + "  int i = get_global_id(0);\n  if (i < n) y[i] = a + i;\n}\n"
                + "__kernel void many(__global double *y, const int n, const double a");
        for (int k = 0; k < EXTRA_ARGS; k++) {
            sb.append(", const int a").append(k);
        }
        sb.append(") {\n  int i = get_global_id(0);\n  if (i < n) y[i] = a + i");
        for (int k = 0; k < EXTRA_ARGS; k++) {
            sb.append(" + a").append(k);
        }
        SOURCE = sb.append(";\n}\n").toString();
    }

    @SuppressWarnings("deprecation")
    private static void raw(String deviceName, int samples, int inner, Report report) {
        RawOpenClCopy.Found f = RawOpenClCopy.find(deviceName);
        if (f == null) {
            throw new IllegalStateException("launch: no raw OpenCL device named like " + deviceName);
        }
        cl_context ctx = f.context();
        cl_command_queue q = clCreateCommandQueue(ctx, f.device(), 0, null);
        cl_program prog = clCreateProgramWithSource(ctx, 1, new String[] {SOURCE}, null, null);
        clBuildProgram(prog, 0, null, null, null, null);
        cl_kernel few = clCreateKernel(prog, "few", null);
        cl_kernel many = clCreateKernel(prog, "many", null);
        cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (long) GLOBAL * Sizeof.cl_double, null, null);
        long[] global = {GLOBAL};
        long[] local = {LOCAL};
        try {
            IntConsumer finish = i -> {
                setArgs(few, y, i, 0);
                clEnqueueNDRangeKernel(q, few, 1, null, global, local, 0, null, null);
                clFinish(q);
            };
            row(report, "raw-finish", "JOCL: 3 clSetKernelArg, enqueue, clFinish", time(finish, samples, inner), 1);
            row(report, "raw-event-wait", "JOCL: 3 clSetKernelArg, enqueue with event, clWaitForEvents, release",
                    time(i -> launchAndWait(q, few, y, i, 0, global, local), samples, inner), 1);
            row(report, "raw-event-wait-49args", "JOCL: 49 clSetKernelArg, enqueue with event, clWaitForEvents, release",
                    time(i -> launchAndWait(q, many, y, i, EXTRA_ARGS, global, local), samples, inner), 1);
            int batch = 64;
            IntConsumer pipelined = i -> {
                for (int b = 0; b < batch; b++) {
                    setArgs(few, y, i, 0);
                    clEnqueueNDRangeKernel(q, few, 1, null, global, local, 0, null, null);
                }
                clFinish(q);
            };
            row(report, "raw-pipelined", "JOCL: 64 enqueues, one clFinish; per launch", time(pipelined, samples, inner / 16), batch);
        } finally {
            clReleaseMemObject(y);
            clReleaseKernel(few);
            clReleaseKernel(many);
            clReleaseProgram(prog);
            clReleaseCommandQueue(q);
            io.lobatto.backend.aparapi.runtime.ClContext.releaseContext(ctx);
        }
    }

    private static void setArgs(cl_kernel k, cl_mem y, int i, int extra) {
        clSetKernelArg(k, 0, Sizeof.cl_mem, Pointer.to(y));
        clSetKernelArg(k, 1, Sizeof.cl_int, Pointer.to(new int[] {GLOBAL}));
        clSetKernelArg(k, 2, Sizeof.cl_double, Pointer.to(new double[] {i}));
        for (int a = 0; a < extra; a++) {
            clSetKernelArg(k, 3 + a, Sizeof.cl_int, Pointer.to(new int[] {i + a}));
        }
    }

    private static void launchAndWait(cl_command_queue q, cl_kernel k, cl_mem y, int i, int extra, long[] global, long[] local) {
        setArgs(k, y, i, extra);
        cl_event ev = new cl_event();
        clEnqueueNDRangeKernel(q, k, 1, null, global, local, 0, null, ev);
        clWaitForEvents(1, new cl_event[] {ev});
        clReleaseEvent(ev);
    }

    /** {@code samples} samples of {@code inner} calls each (after {@code inner} warm-up calls); seconds per call. */
    private static Timing.Samples time(IntConsumer op, int samples, int inner) {
        return Timing.measure(inner, samples, inner, op, () -> { });
    }

    // ------------------------------------------------------------------ report

    private static void row(Report report, String name, String what, Timing.Samples s, int perSample) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("test", name);
        row.put("what", what);
        row.put("us", s.median() * 1e6 / perSample);
        row.put("us_min", s.min() * 1e6 / perSample);
        row.put("us_max", s.max() * 1e6 / perSample);
        double[] us = s.seconds().clone();
        for (int i = 0; i < us.length; i++) {
            us[i] = us[i] * 1e6 / perSample;
        }
        row.put("samples_us", us);
        report.row(row);
        report.out().printf(Locale.ROOT, "%-24s %9.2f us  (min %.2f, max %.2f)  %s%n", name, s.median() * 1e6 / perSample,
                s.min() * 1e6 / perSample, s.max() * 1e6 / perSample, what);
    }

    /** The differences that attribute T0: each one a line of the terminal output and a metadata entry. */
    private static void summary(Report report) {
        Map<String, Double> us = new LinkedHashMap<>();
        for (Map<String, Object> r : report.rows()) {
            us.put((String) r.get("test"), (Double) r.get("us"));
        }
        derive(report, "rawPerArg_us", "per extra raw clSetKernelArg",
                (us.get("raw-event-wait-49args") - us.get("raw-event-wait")) / EXTRA_ARGS);
        derive(report, "eventWaitMinusFinish_us", "event wait minus clFinish",
                us.get("raw-event-wait") - us.get("raw-finish"));
        derive(report, "backendPipelinedMinusRaw_us", "the backend's pipelined launch minus a raw pipelined launch",
                us.get("backend-fill-pipelined") - us.get("raw-pipelined"));
        derive(report, "backendFinishMinusRaw_us", "the backend's launch + synchronize minus raw enqueue + clFinish",
                us.get("backend-fill-finish") - us.get("raw-finish"));
    }

    private static void derive(Report report, String key, String what, double value) {
        report.meta(key, value);
        report.out().printf(Locale.ROOT, "  %-30s %8.2f us  %s%n", key, value, what);
    }
}
