package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.DeviceVector;

/** The backend opened ahead by {@code main}: which arguments start it, and that the command takes it once. */
class BackendAheadTest {

    @Test
    void theBackendArgumentOfACommandThatOpensOne() {
        assertEquals("best", BackendAhead.backendArgument(new String[] {"poisson"}));
        assertEquals("aparapi", BackendAhead.backendArgument(new String[] {"poisson", "-b", "aparapi", "-N", "7"}));
        assertEquals("cpu", BackendAhead.backendArgument(new String[] {"--stacktrace", "poisson", "--backend", "cpu", "-N", "3"}));
        assertEquals("aparapi", BackendAhead.backendArgument(new String[] {"nekbone", "--backend=aparapi"}));
        assertEquals("cpu", BackendAhead.backendArgument(new String[] {"--stacktrace", "diffusion", "-bcpu"}));
        assertEquals("best", BackendAhead.backendArgument(new String[] {"elasticity", "-e", "2,2,2"}));
    }

    @Test
    void nothingForHelpVersionOtherCommandsOrAMissingValue() {
        assertNull(BackendAhead.backendArgument(new String[] {}));
        assertNull(BackendAhead.backendArgument(new String[] {"poisson", "--help"}));
        assertNull(BackendAhead.backendArgument(new String[] {"poisson", "-h"}));
        assertNull(BackendAhead.backendArgument(new String[] {"--version"}));
        assertNull(BackendAhead.backendArgument(new String[] {"help", "poisson"}));
        assertNull(BackendAhead.backendArgument(new String[] {"unknown", "-b", "cpu"}));
        assertNull(BackendAhead.backendArgument(new String[] {"poisson", "-b"}));
        assertNull(BackendAhead.backendArgument(new String[] {"poisson", "--backend="}));
    }

    @Test
    void theCommandTakesTheBackendOpenedAheadOnce() {
        BackendAhead.start(new String[] {"poisson", "-b", "cpu"});
        assertNull(BackendAhead.take("aparapi"), "another name is not the one opened ahead");
        Backend b = BackendAhead.take("cpu");
        assertNotNull(b, "opened ahead");
        try (b) {
            assertEquals("cpu", b.name());
            double[] interval = BackendAhead.interval();
            assertTrue(interval[0] <= interval[1], "opening began " + interval[0] + " s, ended " + interval[1] + " s");
            try (DeviceVector v = b.allocate(3)) {
                b.write(new double[] {1, 2, 3}, v);
                assertEquals(14.0, b.dot(v, v), 0.0);
            }
        }
        assertNull(BackendAhead.take("cpu"), "taken once");
    }

    @Test
    void aBackendNotTakenIsClosedByDiscard() {
        BackendAhead.start(new String[] {"poisson", "--backend", "cpu"});
        BackendAhead.discard();
        assertNull(BackendAhead.take("cpu"), "discarded");
        BackendAhead.discard();   // nothing left: no effect
    }

    @Test
    void optionsTakeTheBackendOpenedAhead() {
        BackendAhead.start(new String[] {"poisson", "-b", "cpu"});
        BackendOptions options = new BackendOptions();
        options.backend = "cpu";
        try (Backend b = options.create()) {
            assertTrue(options.openedAhead);
            assertEquals("cpu", b.name());
        }
        BackendOptions again = new BackendOptions();
        again.backend = "cpu";
        try (Backend b = again.create()) {
            assertEquals("cpu", b.name());
            assertTrue(!again.openedAhead && again.openingStarted <= again.openingEnded);
        }
    }

    @Test
    void anUnknownBackendFailsWhenTheCommandOpensIt() {
        BackendAhead.start(new String[] {"poisson", "-b", "nosuch"});
        BackendOptions options = new BackendOptions();
        options.backend = "nosuch";
        RuntimeException e = assertThrows(RuntimeException.class, options::create);
        assertTrue(e.getMessage().contains("nosuch"), e.getMessage());
    }
}
