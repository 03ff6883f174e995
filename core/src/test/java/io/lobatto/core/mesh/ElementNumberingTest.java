package io.lobatto.core.mesh;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link ElementNumbering}: its map ({@link ElementNumbering#globalId}, the host fill of
 * {@link SpectralElementMesh#localToGlobal()}) equals the map of the fill before it (kept here as the reference: node
 * classes by kind, entity ordinals and orientations of {@link SpectralElementMesh.Topology#walk}), entry for entry, at
 * N = 1..9 on boxes and scrambled meshes; the mask from the entities (no map filled) equals the mask from the map; the
 * map is filled only on first use.
 */
class ElementNumberingTest {

    /** The fill before ElementNumbering (SpectralElementMesh.number at e3b286e), with its node-class tables. */
    static int[] referenceMap(HexMesh mesh, int n) {
        SpectralElementMesh.Topology topo = SpectralElementMesh.Topology.walk(mesh);
        int ne = mesh.elementCount();
        int nq = n + 1;
        int np = nq * nq * nq;
        int m1 = n - 1;
        long[] sizes = {1, m1, (long) m1 * m1, (long) m1 * m1 * m1};
        byte[] kinds = topo.kinds();
        int[] base = new int[kinds.length];
        long next = 0;
        for (int k = 0; k < kinds.length; k++) {
            base[k] = (int) next;
            next += sizes[kinds[k]];
        }
        byte[] kind = new byte[np];
        byte[] a = new byte[np];
        int[] b = new int[np];
        int[] c = new int[np];
        int[] ijk = new int[3];
        for (int kk = 0; kk < nq; kk++) {
            for (int jj = 0; jj < nq; jj++) {
                for (int ii = 0; ii < nq; ii++) {
                    int l = ii + nq * (jj + nq * kk);
                    ijk[0] = ii;
                    ijk[1] = jj;
                    ijk[2] = kk;
                    int onB = 0;
                    for (int d = 0; d < 3; d++) {
                        if (ijk[d] == 0 || ijk[d] == n) {
                            onB++;
                        }
                    }
                    if (onB == 3) {
                        kind[l] = 0;
                        a[l] = (byte) HexReference.cornerOf(ii / n, jj / n, kk / n);
                    } else if (onB == 2) {
                        int axis = (ii != 0 && ii != n) ? 0 : (jj != 0 && jj != n) ? 1 : 2;
                        int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
                        kind[l] = 1;
                        a[l] = (byte) HexReference.edgeIndex(axis, ijk[o1] / n, ijk[o2] / n);
                        b[l] = ijk[axis];
                    } else if (onB == 1) {
                        int axis = (ii == 0 || ii == n) ? 0 : (jj == 0 || jj == n) ? 1 : 2;
                        int f = 2 * axis + ijk[axis] / n;
                        kind[l] = 2;
                        a[l] = (byte) f;
                        b[l] = ijk[HexReference.faceTangentAxis(f, 0)];
                        c[l] = ijk[HexReference.faceTangentAxis(f, 1)];
                    } else {
                        kind[l] = 3;
                        b[l] = (ii - 1) + m1 * ((jj - 1) + m1 * (kk - 1));
                    }
                }
            }
        }
        int[] l2g = new int[ne * np];
        for (int e = 0; e < ne; e++) {
            for (int l = 0; l < np; l++) {
                int g;
                int al = a[l];
                switch (kind[l]) {
                    case 0 -> g = base[topo.corner()[8 * e + al]];
                    case 1 -> {
                        int m = b[l];
                        g = base[topo.edge()[12 * e + al]] + (topo.edgeReversed()[12 * e + al] ? n - 1 - m : m - 1);
                    }
                    case 2 -> {
                        int frame = topo.faceFrame()[6 * e + al];
                        int u = b[l], v = c[l];
                        int du = (frame & 1) == 0 ? u : n - u;
                        int dv = (frame & 2) == 0 ? v : n - v;
                        boolean firstIsU = (frame & 4) != 0;
                        int p = firstIsU ? du : dv;
                        int q = firstIsU ? dv : du;
                        g = base[topo.face()[6 * e + al]] + (p - 1) + m1 * (q - 1);
                    }
                    default -> g = base[topo.interior()[e]] + b[l];
                }
                l2g[e * np + l] = g;
            }
        }
        return l2g;
    }

    /** The mask by the map: every node of a selected face, read through localToGlobal. */
    static boolean[] referenceMask(SpectralElementMesh mesh, int[] l2g, java.util.function.IntPredicate selected) {
        boolean[] out = new boolean[mesh.globalNodeCount()];
        int np = mesh.nodesPerElement();
        for (int e = 0; e < mesh.elementCount(); e++) {
            for (int f = 0; f < 6; f++) {
                if (selected.test(mesh.hexMesh().faceTag(e, f))) {
                    for (int ln : HexReference.faceNodes(mesh.degree(), f)) {
                        out[l2g[e * np + ln]] = true;
                    }
                }
            }
        }
        return out;
    }

    static HexMesh[] meshes() {
        HexMesh box = HexMesh.box(3, 2, 4, 0, 1, 0, 2, 0, 1.5);
        return new HexMesh[] {box, TestMeshes.scrambled(box, 7), TestMeshes.scrambled(HexMesh.box(2, 3, 2, 0, 1, 0, 1, 0, 1), 11)};
    }

    @Test
    void mapEqualsTheFillBeforeAtDegreesOneToNine() {
        for (HexMesh hex : meshes()) {
            for (int n = 1; n <= 9; n++) {
                SpectralElementMesh mesh = SpectralElementMesh.of(hex, n);
                ElementNumbering num = mesh.numbering();
                int[] ref = referenceMap(hex, n);
                String w = mesh.toString();
                assertEquals(Arrays.stream(ref).max().orElse(-1) + 1, num.globalNodeCount(), w + ": N_G");
                assertEquals(ref.length, num.localSize(), w + ": N_L");
                int np = num.nodesPerElement();
                for (int e = 0; e < mesh.elementCount(); e++) {
                    for (int l = 0; l < np; l++) {
                        assertEquals(ref[e * np + l], num.globalId(e, l), w + ": globalId(" + e + ", " + l + ")");
                        assertEquals(ref[e * np + l], mesh.globalId(e, l), w + ": mesh.globalId before the fill");
                    }
                }
                assertArrayEquals(ref, mesh.localToGlobal(), w + ": localToGlobal");
                assertEquals(num.globalNodeCount(), mesh.globalNodeCount());
            }
        }
    }

    @Test
    void maskFromTheEntitiesEqualsTheMaskFromTheMap() {
        HexMesh tagged = HexMesh.box(3, 2, 2, 0, 1, 0, 1, 0, 1);
        for (HexMesh hex : new HexMesh[] {tagged, TestMeshes.scrambled(tagged, 3)}) {
            for (int n = 1; n <= 8; n++) {
                SpectralElementMesh fresh = SpectralElementMesh.of(hex, n);
                boolean[] all = fresh.boundaryMaskAllTagged();          // no map filled yet: from the entities
                boolean[] some = fresh.boundaryMask(HexMesh.TAG_XMIN, HexMesh.TAG_ZMAX);
                int[] l2g = referenceMap(hex, n);
                assertArrayEquals(referenceMask(fresh, l2g, t -> t != 0), all, fresh + ": all tagged");
                assertArrayEquals(referenceMask(fresh, l2g, t -> t == HexMesh.TAG_XMIN || t == HexMesh.TAG_ZMAX), some,
                        fresh + ": x-min and z-max");
                fresh.localToGlobal();                                  // now from the map
                assertArrayEquals(all, fresh.boundaryMaskAllTagged(), fresh + ": all tagged after the fill");
                boolean any = false;
                for (boolean b : all) {
                    any |= b;
                }
                assertEquals(true, any, "the box has tagged faces");
            }
        }
    }

    @Test
    void theSwitchFillsUpFrontAndGivesTheSameMap() throws Exception {
        HexMesh hex = TestMeshes.scrambled(HexMesh.box(2, 2, 3, 0, 1, 0, 1, 0, 1), 5);
        SpectralElementMesh lazy = SpectralElementMesh.of(hex, 6);
        java.lang.reflect.Field f = SpectralElementMesh.class.getDeclaredField("l2g");
        f.setAccessible(true);
        assertEquals(null, f.get(lazy), "no map until it is asked for");
        System.setProperty(ElementNumbering.DEVICE_PROPERTY, "false");
        try {
            assertFalse(ElementNumbering.onDevice());
            SpectralElementMesh eager = SpectralElementMesh.of(hex, 6);
            assertArrayEquals((int[]) f.get(eager), lazy.localToGlobal());
        } finally {
            System.clearProperty(ElementNumbering.DEVICE_PROPERTY);
        }
    }

    @Test
    void globalIdNamesItsArguments() {
        ElementNumbering num = SpectralElementMesh.of(HexMesh.box(1, 1, 2, 0, 1, 0, 1, 0, 1), 2).numbering();
        assertEquals("element 2 is not in [0, 2)",
                assertThrows(IndexOutOfBoundsException.class, () -> num.globalId(2, 0)).getMessage());
        assertEquals("node 27 is not in [0, 27)",
                assertThrows(IndexOutOfBoundsException.class, () -> num.globalId(0, 27)).getMessage());
    }
}
