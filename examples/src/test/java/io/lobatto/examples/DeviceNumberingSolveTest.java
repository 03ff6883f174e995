package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.Backends;
import io.lobatto.core.mesh.ElementNumbering;
import io.lobatto.core.mesh.HexMesh;
import io.lobatto.core.mesh.SpectralElementMesh;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The README job's solve (box, BP3.5, p-multigrid) with the numbering made where Z is built against the path before
 * ({@link ElementNumbering#DEVICE_PROPERTY} = false: the host map filled up front and Z built from it): the same CG
 * iterations, residuals and errors bit for bit, on the Java backend and on Aparapi (PoCL); on Aparapi the fine mesh's
 * host map is never filled. Aparapi is skipped without OpenCL unless LOBATTO_REQUIRE_OPENCL=1.
 */
class DeviceNumberingSolveTest {

    private static Backend aparapi;

    private static synchronized Backend sharedAparapi() {
        if (aparapi == null) {
            aparapi = Backends.create("aparapi");   // one for the JVM's life, as PoissonBackendsAgreeTest
        }
        return aparapi;
    }

    private static Object hostMap(SpectralElementMesh mesh) throws ReflectiveOperationException {
        java.lang.reflect.Field f = SpectralElementMesh.class.getDeclaredField("l2g");
        f.setAccessible(true);
        return f.get(mesh);
    }

    /** The job on {@code backend}: a fresh mesh (so the switch decides its fill), p-MG to 1e-10. */
    private static PoissonProblem.Solution solve(Backend backend, boolean device, SpectralElementMesh[] made) {
        if (!device) {
            System.setProperty(ElementNumbering.DEVICE_PROPERTY, "false");
        }
        try {
            SpectralElementMesh mesh = SpectralElementMesh.of(HexMesh.box(4, 3, 4, 0, 1, 0, 1, 0, 1), 7);
            made[0] = mesh;
            PoissonProblem problem = new PoissonProblem(mesh, ManufacturedSolution.unitCube(0.5), PoissonProblem.Operator.BP35);
            return problem.solve(backend, PoissonProblem.Preconditioning.PMG, null, 1e-10, 500, null, null);
        } finally {
            System.clearProperty(ElementNumbering.DEVICE_PROPERTY);
        }
    }

    private static void assertSame(PoissonProblem.Solution a, PoissonProblem.Solution b, String what) {
        assertTrue(a.solve().converged() && b.solve().converged(), what + ": " + a.solve() + " / " + b.solve());
        assertEquals(a.solve().iterations(), b.solve().iterations(), what + ": iterations");
        assertEquals(a.solve().finalResidual(), b.solve().finalResidual(), 0.0, what + ": final residual");
        assertEquals(a.maxError(), b.maxError(), 0.0, what + ": max error");
        assertEquals(a.l2Error(), b.l2Error(), 0.0, what + ": L2 error");
        assertEquals(a.assembledDofs(), b.assembledDofs(), what + ": DOFs");
        assertTrue(a.maxError() < 1e-3, what + ": max error " + a.maxError());
    }

    @Test
    void javaBackendSameWithAndWithoutTheSwitch() throws ReflectiveOperationException {
        SpectralElementMesh[] m1 = new SpectralElementMesh[1];
        SpectralElementMesh[] m2 = new SpectralElementMesh[1];
        PoissonProblem.Solution on, off;
        try (Backend b = Backends.create("cpu")) {
            on = solve(b, true, m1);
            off = solve(b, false, m2);
        }
        assertSame(on, off, "cpu");
        assertNotNull(hostMap(m2[0]), "the switch off fills the map up front");
    }

    @Test
    void aparapiSameWithAndWithoutTheSwitchAndNoHostMap() throws ReflectiveOperationException {
        if (io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty()) {
            BackendProvider p = Backends.provider("aparapi").orElseThrow();
            if ("1".equals(System.getenv("LOBATTO_REQUIRE_OPENCL"))) {
                throw new AssertionError("no OpenCL device: " + p.unavailableReason());
            }
            Assumptions.abort("no OpenCL device: " + p.unavailableReason());
        }
        SpectralElementMesh[] m1 = new SpectralElementMesh[1];
        SpectralElementMesh[] m2 = new SpectralElementMesh[1];
        PoissonProblem.Solution on = solve(sharedAparapi(), true, m1);
        assertNull(hostMap(m1[0]), "the fine mesh's host map was never filled");
        PoissonProblem.Solution off = solve(sharedAparapi(), false, m2);
        assertSame(on, off, "aparapi");
        assertArrayEquals(on.solve().residualHistory(), off.solve().residualHistory(), 0.0, "aparapi: residuals");
        PoissonProblem.Solution cpu;
        try (Backend b = Backends.create("cpu")) {
            cpu = solve(b, true, new SpectralElementMesh[1]);
        }
        assertTrue(Math.abs(cpu.solve().iterations() - on.solve().iterations()) <= 1, cpu.solve() + " / " + on.solve());
        assertEquals(cpu.maxError(), on.maxError(), 1e-3 * cpu.maxError());
    }
}
