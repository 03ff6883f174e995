package io.lobatto.parallel;

import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;

/**
 * One rank's share of a mesh cut into as many parts as there are ranks: its elements as a mesh of their own, with the
 * elements that touch another part first (hipBone's overlap applies them before the exchange starts), and the GLL nodes
 * it shares with other ranks, keyed alike on every rank ({@link SharedNodes}).
 */
public interface MeshPartition {

    /** The rank's elements as a mesh of their own (same vertex positions and orders, same face tags). */
    HexMesh localMesh();

    /** The whole mesh the parts are cut from, the same on every rank (the redundant coarse solve builds on it). */
    HexMesh globalMesh();

    /** The element of {@link #globalMesh()} that is local element {@code e} of {@link #localMesh()}. */
    int globalElement(int e);

    /** The number of the rank's elements. */
    int elementCount();

    /**
     * The shared nodes of the assembled vector {@code z} of {@code mesh}, which must be {@link #localMesh()} at any
     * degree (p-multigrid asks for each level).
     */
    SharedNodes sharedNodes(SpectralElementMesh mesh, ScatterOperator z);

    /** What the part is, for the balance table (e.g. "layers 0..15", "rcb"). */
    String describe();
}
