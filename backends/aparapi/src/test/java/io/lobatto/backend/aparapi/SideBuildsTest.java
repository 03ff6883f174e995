package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.lobatto.backend.aparapi.runtime.KernelSource;
import io.lobatto.backend.aparapi.runtime.ProgramCache;
import io.lobatto.backend.cpu.CpuBackend;
import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.BackendException;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.gs.ScatterOperator;
import io.lobatto.operators.AssembledOperator;
import io.lobatto.operators.StiffnessBp35;

/**
 * Programs compiled in a second context and loaded into the job's context as binaries
 * ({@link ProgramCache#SIDE_BUILDS_PROPERTY}, the default on NVIDIA only): forced on here, with the disk cache off, so
 * every kernel takes that path. The operator they make gives the Java backend's numbers; a kernel that does not compile
 * still fails with its build log.
 */
class SideBuildsTest {

    @AfterEach
    void clear() {
        System.clearProperty(ProgramCache.SIDE_BUILDS_PROPERTY);
        System.clearProperty(ProgramCache.PROPERTY);
    }

    private static AparapiBackend sideBuilding() {
        Assumptions.assumeTrue(OpenClAvailability.available(), "no OpenCL device");
        System.setProperty(ProgramCache.SIDE_BUILDS_PROPERTY, "true");
        System.setProperty(ProgramCache.PROPERTY, "none");
        return new AparapiBackend();
    }

    @Test
    void anOperatorBuiltAsideAppliesAsTheJavaBackend() {
        SpectralElementMesh mesh = TestProblems.deformedBox(2, 1, 1, 3);
        ScatterOperator z = TestProblems.dirichlet(mesh);
        double[] x = TestProblems.random(z.globalSize(), 3);
        double[] expected;
        try (CpuBackend cpu = new CpuBackend(1);
             AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, cpu);
             DeviceVector xd = cpu.upload(x); DeviceVector yd = cpu.allocate(a.size())) {
            a.apply(xd, yd);
            expected = cpu.download(yd);
        }
        try (AparapiBackend be = sideBuilding()) {
            ProgramCache programs = be.runtime().programs();
            assertTrue(programs.sideBuilds(), "-D" + ProgramCache.SIDE_BUILDS_PROPERTY + "=true");
            int compiled = programs.compiled();
            try (AssembledOperator a = AssembledOperator.bind(StiffnessBp35.on(mesh, 0), z, be);
                 DeviceVector xd = be.upload(x); DeviceVector yd = be.allocate(a.size())) {
                a.apply(xd, yd);
                assertArrayEquals(expected, be.download(yd), 1e-12 * TestProblems.maxAbs(expected), "A x");
            }
            assertTrue(programs.compiled() > compiled, "kernels compiled (the disk cache is off)");
            assertEquals(0, programs.loadedFromDisk());
        }
    }

    @Test
    void aBadKernelBuiltAsideFailsWithItsLog() {
        try (AparapiBackend be = sideBuilding()) {
            KernelSource bad = new KernelSource("bad aside",
                    "__kernel void run(__global double *y) { y[0] = no_such_symbol_aside; }\n",
                    java.util.List.of(new KernelSource.Arg("y", KernelSource.Kind.GLOBAL_BUFFER)));
            BackendException e = assertThrows(BackendException.class, () -> be.runtime().programs().kernel(bad));
            assertTrue(e.getMessage().contains("build log") && e.getMessage().contains("no_such_symbol_aside"),
                    e.getMessage());
        }
    }
}
