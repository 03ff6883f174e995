package io.lobatto.backend.aparapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import io.lobatto.conformance.TestProblems;
import io.lobatto.core.backend.DeviceVector;
import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.StiffnessBp35;
import io.lobatto.solvers.PMultigrid;

/**
 * {@code Backend.profileScope} on the Aparapi backend: the launches after it are counted as "scope | kernel" in the
 * launch statistics, the ones after an empty scope under their own names; p-multigrid names each level's share of a
 * V-cycle "p-MG L<l> N=<degree>", so that a profile splits the kernels by level (issue 30: where two ranks spend more).
 */
class ProfileScopeTest {

    @Test
    void launchesCarryTheScopeUntilItIsCleared() {
        AparapiBackend be = OpenClAvailability.backend();
        try (DeviceVector x = be.upload(TestProblems.random(1000, 1)); DeviceVector y = be.allocate(1000)) {
            be.collectStatistics(true);
            try {
                be.profileScope("outer");
                be.axpby(1, x, 2, y);
                be.profileScope("");
                be.axpby(1, x, 2, y);
                be.axpby(1, x, 2, y);
                Map<String, Long> launches = launches(be);
                assertEquals(Long.valueOf(1), launches.get("outer | axpby"), launches.toString());
                assertEquals(Long.valueOf(2), launches.get("axpby"), launches.toString());
            } finally {
                be.collectStatistics(false);
                be.profileScope("");
            }
        }
    }

    @Test
    void pMultigridNamesEachLevel() {
        AparapiBackend be = OpenClAvailability.backend();
        SpectralElementMesh mesh = TestProblems.deformedBox(3, 2, 2, 4);
        try (PMultigrid pmg = PMultigrid.builder(m -> StiffnessBp35.on(m, 0.0), mesh, be).build()) {
            int n = pmg.levels().get(0).dofs();
            try (DeviceVector r = be.upload(TestProblems.random(n, 7)); DeviceVector z = be.allocate(n)) {
                be.collectStatistics(true);
                try {
                    pmg.apply(r, z);
                    be.axpby(1, r, 1, z); // after the V-cycle: no scope
                    Map<String, Long> launches = launches(be);
                    for (int l = 0; l < pmg.levels().size(); l++) {
                        String scope = "p-MG L" + l + " N=" + pmg.levels().get(l).degree() + " | ";
                        assertTrue(launches.keySet().stream().anyMatch(k -> k.startsWith(scope)), scope + " in " + launches.keySet());
                    }
                    assertTrue(launches.containsKey("axpby"), "the scope ends with the V-cycle: " + launches.keySet());
                    assertTrue(launches.keySet().stream().allMatch(k -> k.equals("axpby") || k.startsWith("p-MG L")),
                            "every V-cycle launch has a level: " + launches.keySet());
                } finally {
                    be.collectStatistics(false);
                }
            }
        }
    }

    private static Map<String, Long> launches(AparapiBackend be) {
        Map<String, Long> out = new TreeMap<>();
        be.statistics().forEach(s -> out.merge(s.op(), s.launches(), Long::sum));
        return out;
    }
}
