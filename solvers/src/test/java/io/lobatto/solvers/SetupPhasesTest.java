package io.lobatto.solvers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The phases' wall seconds and the process CPU seconds charged to them. */
class SetupPhasesTest {

    @Test
    void wallSecondsAddUpPerPhaseInFirstRunOrder() {
        SetupPhases p = new SetupPhases();
        p.add("b", 2_000_000);
        p.add("a", 1_000_000);
        p.add("b", 3_000_000);
        assertEquals(List.of("b", "a"), List.copyOf(p.seconds().keySet()));
        assertEquals(5e-3, p.seconds().get("b"), 1e-15);
        assertEquals(6e-3, p.totalSeconds(), 1e-15);
    }

    /** A phase that keeps this thread busy for 0.3 s of its CPU time is charged that, a sleeping one much less. */
    @Test
    void aBusyPhaseIsChargedItsCpuTimeAndASleepingOneLittle() throws InterruptedException {
        assumeTrue(SetupPhases.processCpuNanos() >= 0, "the process CPU time is read from /proc/self/stat (Linux)");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        SetupPhases p = new SetupPhases();
        long t0 = System.nanoTime();
        long c0 = threads.getCurrentThreadCpuTime();
        double sink = 0;
        while (threads.getCurrentThreadCpuTime() - c0 < 300_000_000L) {
            for (int i = 0; i < 100_000; i++) {
                sink += Math.sqrt(i + sink);
            }
        }
        p.add("busy", System.nanoTime() - t0);
        t0 = System.nanoTime();
        Thread.sleep(300);
        p.add("asleep", System.nanoTime() - t0);
        Map<String, Double> cpu = p.cpuSeconds();
        assertTrue(sink > 0);
        assertTrue(cpu.get("busy") >= 0.28, "busy phase charged " + cpu.get("busy") + " s of CPU, expected >= 0.28 (10 ms ticks)");
        assertTrue(cpu.get("asleep") < 0.15, "sleeping phase charged " + cpu.get("asleep") + " s of CPU");
    }
}
