package io.lobatto.parallel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.NodeMap;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

class SlabPartitionTest {

    @Test
    void layersAreBalancedAndCoverTheBoxOnce() {
        int[] first = new int[4], layers = new int[4];
        for (int r = 0; r < 4; r++) {
            SlabPartition p = SlabPartition.of(3, 2, 10, 4, r);
            first[r] = p.firstLayer();
            layers[r] = p.layers();
        }
        assertArrayEquals(new int[]{0, 3, 6, 8}, first);
        assertArrayEquals(new int[]{3, 3, 2, 2}, layers);
    }

    @Test
    void localMeshIsTheGlobalBoxesSlabBitwise() {
        HexMesh global = HexMesh.box(3, 2, 5, 0, 1, 0, 1, 0, 1);
        SlabPartition p = SlabPartition.of(3, 2, 5, 2, 1); // layers 3..4
        HexMesh local = p.localMesh();
        assertEquals(12, local.elementCount());
        for (int e = 0; e < local.elementCount(); e++) {
            int g = e + 3 * 2 * 3;
            for (int k = 0; k < 8; k++) {
                for (int d = 0; d < 3; d++) {
                    assertEquals(global.vertex(global.elementVertex(g, k), d), local.vertex(local.elementVertex(e, k), d), 0);
                }
            }
            for (int f = 0; f < 6; f++) {
                assertEquals(global.faceTag(g, f), local.faceTag(e, f));
            }
        }
        assertTrue(local.tags().contains(HexMesh.TAG_ZMAX));
        assertTrue(!local.tags().contains(HexMesh.TAG_ZMIN), "the cut plane z = 3/5 must not be a Dirichlet face");
    }

    @Test
    void sharedNodesAreTheInteriorOfTheCutPlanesOwnedByTheLowerRank() {
        int nx = 3, ny = 2, nz = 6, n = 4;
        int plane = (nx * n - 1) * (ny * n - 1); // the plane's GLL nodes without its Dirichlet rim
        SlabPartition middle = SlabPartition.of(nx, ny, nz, 3, 1);
        SpectralElementMesh mesh = SpectralElementMesh.of(middle.localMesh(), n, NodeMap.sinusoidal(0.05, 0, 1, 0, 1, 0, 1));
        ScatterOperator z = ScatterOperator.build(mesh.localToGlobal(), mesh.globalNodeCount(), mesh.boundaryMaskAllTagged());
        SharedNodes s = middle.sharedNodes(mesh, z);
        assertArrayEquals(new int[]{0, 2}, s.neighbours());
        assertEquals(plane, s.ids()[0].length);
        assertEquals(plane, s.ids()[1].length);
        assertEquals(z.globalSize() - plane, s.ownedCount());
        for (int id : s.ids()[0]) {
            assertEquals(0, s.ownerMask()[id], 0);
        }
        for (int id : s.ids()[1]) {
            assertEquals(1, s.ownerMask()[id], 0);
        }
        // owned counts over the ranks add up to the one-rank unknowns
        long owned = 0;
        for (int r = 0; r < 3; r++) {
            SlabPartition p = SlabPartition.of(nx, ny, nz, 3, r);
            SpectralElementMesh m = SpectralElementMesh.of(p.localMesh(), n);
            ScatterOperator zr = ScatterOperator.build(m.localToGlobal(), m.globalNodeCount(), m.boundaryMaskAllTagged());
            owned += p.sharedNodes(m, zr).ownedCount();
        }
        assertEquals((long) (nx * n - 1) * (ny * n - 1) * (nz * n - 1), owned);
    }

    @Test
    void refusesMoreRanksThanLayersAndNamesBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlabPartition.of(4, 4, 3, 4, 0));
        assertTrue(e.getMessage().contains("nz = 3") && e.getMessage().contains("4 slabs"), e.getMessage());
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class, () -> SlabPartition.of(4, 4, 4, 2, 2));
        assertTrue(r.getMessage().contains("rank = 2") && r.getMessage().contains("[0, 2)"), r.getMessage());
    }
}
