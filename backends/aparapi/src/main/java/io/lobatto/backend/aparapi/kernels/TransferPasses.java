package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;

/**
 * The three sum-factorised passes of the p-multigrid transfer between the GLL points of degrees Nc &lt; Nf (see
 * {@link TransferKernel}, which fixes the pass and the degrees per build, and {@link TransferAnyKernel}, which takes
 * them as arguments): {@link #pass} is entry t of pass {@code which} with Nc + 1 = {@code cp} and Nf + 1 = {@code fp}
 * (named apart from the build constants of {@link TransferKernel}, whose fields the source's macros replace).
 */
public abstract class TransferPasses extends Kernel {

    double[] jm = new double[1];
    int[] ids = new int[1];
    double[] xg = new double[1];
    double[] wf = new double[1];
    double[] ta = new double[1];
    double[] tb = new double[1];
    /** Output entries of this pass. */
    int n;

    /** Output entry {@code t} of pass {@code which} ({@link TransferKernel#PROLONG_I} ... {@link TransferKernel#RESTRICT_I}). */
    protected double pass(int t, int which, int cp, int fp) {
        double s = 0;
        if (which == TransferKernel.PROLONG_I) {
            // t = ((e cp + k) cp + j) fp + a
            int a = t % fp;
            int ekj = t / fp;
            int base = ekj * cp;
            for (int i = 0; i < cp; i++) {
                int id = ids[base + i];
                if (id >= 0) {
                    s += jm[a * cp + i] * xg[id];
                }
            }
        } else if (which == TransferKernel.PROLONG_J) {
            // t = ((e cp + k) fp + b) fp + a
            int a = t % fp;
            int b = (t / fp) % fp;
            int ek = t / (fp * fp);
            for (int j = 0; j < cp; j++) {
                s += jm[b * cp + j] * ta[(ek * cp + j) * fp + a];
            }
        } else if (which == TransferKernel.PROLONG_K) {
            // t = (e fp + c) fp^2 + ba
            int plane = fp * fp;
            int ba = t % plane;
            int c = (t / plane) % fp;
            int e = t / (plane * fp);
            for (int k = 0; k < cp; k++) {
                s += jm[c * cp + k] * ta[(e * cp + k) * plane + ba];
            }
            s = s * wf[t];
        } else if (which == TransferKernel.RESTRICT_K) {
            // t = (e cp + k) fp^2 + ba
            int plane = fp * fp;
            int ba = t % plane;
            int k = (t / plane) % cp;
            int e = t / (plane * cp);
            for (int c = 0; c < fp; c++) {
                int node = (e * fp + c) * plane + ba;
                int id = ids[node];
                if (id >= 0) {
                    s += jm[c * cp + k] * wf[node] * xg[id];
                }
            }
        } else if (which == TransferKernel.RESTRICT_J) {
            // t = ((e cp + k) cp + j) fp + a
            int a = t % fp;
            int j = (t / fp) % cp;
            int ek = t / (fp * cp);
            for (int b = 0; b < fp; b++) {
                s += jm[b * cp + j] * ta[(ek * fp + b) * fp + a];
            }
        } else {
            // t = ((e cp + k) cp + j) cp + i
            int i = t % cp;
            int ekj = t / cp;
            for (int a = 0; a < fp; a++) {
                s += jm[a * cp + i] * ta[ekj * fp + a];
            }
        }
        return s;
    }
}
