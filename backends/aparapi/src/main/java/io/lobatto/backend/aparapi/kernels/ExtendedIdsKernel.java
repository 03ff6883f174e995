package io.lobatto.backend.aparapi.kernels;

import com.aparapi.Kernel;
import io.lobatto.backend.aparapi.runtime.BuildConstant;

/**
 * The assembled ids of the extended elements' points (the subdomains of the minimal-overlap Schwarz method, Fischer
 * 1997; Lottes &amp; Fischer 2005), one work-item per point: the walk of
 * {@link io.lobatto.core.backend.ExtendedElementWalk#local} from element e through the faces it crosses (one per
 * coordinate outside 0..N, each by the face's neighbour and code), then the scatter id of the local node reached, -1
 * where the walk leaves the mesh. The same arithmetic as the Java walk, written with scalars only.
 */
public final class ExtendedIdsKernel extends Kernel {

    /** N, the mesh's degree. */
    @BuildConstant int nd;

    /** [E][6]: 6 e' + f' of the neighbour across face f, or -1. */
    int[] nbr = new int[1];
    /** [E][6]: the face codes. */
    int[] code = new int[1];
    /** The mesh's scatter ids [E][(N+1)^3]. */
    int[] sid = new int[1];
    /** The output [E][(N+3)^3]. */
    int[] ids = new int[1];
    /** E (N+3)^3. */
    int n;

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < n) {
            int ne = nd + 3;
            int ne3 = ne * ne * ne;
            int e = t / ne3;
            int p = t % ne3;
            int at = walk(e, p % ne - 1, (p / ne) % ne - 1, p / (ne * ne) - 1);
            int id = -1;
            if (at >= 0) {
                id = sid[at];
            }
            ids[t] = id;
        }
    }

    private int clampN(int v) {
        int r = v;
        if (r < 0) {
            r = 0;
        }
        if (r > nd) {
            r = nd;
        }
        return r;
    }

    private int walk(int e, int i, int j, int k) {
        int nn = nd;
        int nq = nn + 1;
        int elem = e;
        int p0 = clampN(i);
        int p1 = clampN(j);
        int p2 = clampN(k);
        int ax0 = 0;
        int ax1 = 1;
        int ax2 = 2;
        int sg0 = 1;
        int sg1 = 1;
        int sg2 = 1;
        int result = 0;
        int done = 0;
        for (int d = 0; d < 3; d++) {
            int c = i;
            int a = ax0;
            int sg = sg0;
            if (d == 1) {
                c = j;
                a = ax1;
                sg = sg1;
            } else if (d == 2) {
                c = k;
                a = ax2;
                sg = sg2;
            }
            int s = 0;
            if (c < 0) {
                s = -1;
            } else if (c > nn) {
                s = 1;
            }
            if (s != 0 && done == 0) {
                int out = sg * s;
                int pa = p0;
                if (a == 1) {
                    pa = p1;
                } else if (a == 2) {
                    pa = p2;
                }
                int to = pa + out;
                if (to >= 0 && to <= nn) {
                    if (a == 0) {
                        p0 = to;
                    } else if (a == 1) {
                        p1 = to;
                    } else {
                        p2 = to;
                    }
                } else {
                    int f = 2 * a;
                    if (out > 0) {
                        f = f + 1;
                    }
                    int nb = nbr[6 * elem + f];
                    if (nb < 0) {
                        result = -1;
                        done = 1;
                    } else {
                        int cd = code[6 * elem + f];
                        int e2 = nb / 6;
                        int f2 = nb % 6;
                        int u = p0;
                        if (a == 0) {
                            u = p1;
                        }
                        int v = p2;
                        if (a == 2) {
                            v = p1;
                        }
                        int u0 = cd & 1;
                        int v0 = (cd >> 1) & 1;
                        int du1 = ((cd >> 2) & 3) - 1;
                        int dv1 = ((cd >> 4) & 3) - 1;
                        int du2 = ((cd >> 6) & 3) - 1;
                        int dv2 = ((cd >> 8) & 3) - 1;
                        int d2 = f2 / 2;
                        int qd = (f2 % 2) * nn - 1;
                        if (f2 % 2 == 0) {
                            qd = 1;
                        }
                        int qa = nn * u0 + du1 * u + du2 * v;
                        int qb = nn * v0 + dv1 * u + dv2 * v;
                        if (d2 == 0) {
                            p0 = qd;
                            p1 = qa;
                            p2 = qb;
                        } else if (d2 == 1) {
                            p0 = qa;
                            p1 = qd;
                            p2 = qb;
                        } else {
                            p0 = qa;
                            p1 = qb;
                            p2 = qd;
                        }
                        int t0 = (cd >> 10) & 7;
                        int t1 = (cd >> 13) & 7;
                        int t2 = (cd >> 16) & 7;
                        int ta = t0;
                        if (ax0 == 1) {
                            ta = t1;
                        } else if (ax0 == 2) {
                            ta = t2;
                        }
                        int tb = t0;
                        if (ax1 == 1) {
                            tb = t1;
                        } else if (ax1 == 2) {
                            tb = t2;
                        }
                        int tc = t0;
                        if (ax2 == 1) {
                            tc = t1;
                        } else if (ax2 == 2) {
                            tc = t2;
                        }
                        ax0 = ta >> 1;
                        if ((ta & 1) == 0) {
                            sg0 = -sg0;
                        }
                        ax1 = tb >> 1;
                        if ((tb & 1) == 0) {
                            sg1 = -sg1;
                        }
                        ax2 = tc >> 1;
                        if ((tc & 1) == 0) {
                            sg2 = -sg2;
                        }
                        elem = e2;
                    }
                }
            }
        }
        if (done == 0) {
            result = elem * nq * nq * nq + p0 + nq * (p1 + nq * p2);
        }
        return result;
    }
}
