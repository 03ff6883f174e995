package io.lobatto.backend.aparapi.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

/**
 * The register cap's build-option token and its PTX edit, on the shape of PTX that NVIDIA's OpenCL driver returns for an
 * element kernel (an entry with parameters, {@code .reqntid} and a trailing NUL).
 */
class PtxRegisterCapTest {

    private static final String PTX = """
            .version 9.0
            .target sm_90, texmode_independent
            .address_size 64

            \t// .globl\trun

            .entry run(
            \t.param .u64 .ptr .global .align 8 run_param_0,
            \t.param .u32 run_param_1
            )
            .reqntid 256, 1, 1
            {
            \t.reg .f64 \t%fd<4>;
            \tret;
            }
            """;

    @Test
    void theTokenIsReadAndStripped() {
        assertEquals(48, PtxRegisterCap.of("-w -lobatto-maxnreg=48 -cl-nv-opt-level=3"));
        assertEquals(0, PtxRegisterCap.of("-w -cl-mad-enable"));
        assertEquals("-w -cl-nv-opt-level=3", PtxRegisterCap.strip("-w -lobatto-maxnreg=48 -cl-nv-opt-level=3"));
        assertEquals("-w", PtxRegisterCap.strip("-lobatto-maxnreg=64 -w"));
        assertEquals("", PtxRegisterCap.strip("-lobatto-maxnreg=64"));
        assertEquals("-w -cl-mad-enable", PtxRegisterCap.strip("-w -cl-mad-enable"));
        assertEquals("-D X=\"a  b\"", PtxRegisterCap.strip("-D X=\"a  b\""), "options without the token stay as they are");
        assertEquals(40, PtxRegisterCap.of("-w\t-lobatto-maxnreg=40\t-w"));
        assertEquals(0, PtxRegisterCap.of("-DX-lobatto-maxnreg=48"), "inside another word it is not the token");
        assertEquals("-DX-lobatto-maxnreg=48", PtxRegisterCap.strip("-DX-lobatto-maxnreg=48"));
    }

    @Test
    void aCountOutsideTheRegisterFileIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PtxRegisterCap.of("-lobatto-maxnreg=8"));
        assertEquals("build option -lobatto-maxnreg=8: expected a register count in 16..255", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PtxRegisterCap.of("-w -lobatto-maxnreg=lots -w"));
        assertEquals("build option -lobatto-maxnreg=lots: expected a register count in 16..255", e.getMessage());
    }

    @Test
    void theDirectiveGoesAfterTheLaunchBoundsOfEveryEntryAndTheNulStays() {
        byte[] in = (PTX + "\0").getBytes(StandardCharsets.UTF_8);
        byte[] out = PtxRegisterCap.apply(in, 48);
        String want = PTX.replace(".reqntid 256, 1, 1\n{", ".reqntid 256, 1, 1\n.maxnreg 48\n{") + "\0";
        assertArrayEquals(want.getBytes(StandardCharsets.UTF_8), out);

        String two = PTX + PTX.substring(PTX.indexOf(".entry")).replace("run", "other");
        String capped = new String(PtxRegisterCap.apply(two.getBytes(StandardCharsets.UTF_8), 40), StandardCharsets.UTF_8);
        assertEquals(2, capped.split("\\.maxnreg 40\n\\{", -1).length - 1, capped);
    }

    @Test
    void somethingThatIsNotPtxOrIsCappedAlreadyIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PtxRegisterCap.apply("\u007fELF".getBytes(StandardCharsets.UTF_8), 48));
        assertEquals("no .entry in the PTX: not an NVIDIA program binary", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PtxRegisterCap.apply(
                ".version 9.0\n.entry bare\n{\n\tret;\n}\n".getBytes(StandardCharsets.UTF_8), 48));
        assertEquals("PTX entry at offset 13 has no parameter list", e.getMessage());
        byte[] once = PtxRegisterCap.apply(PTX.getBytes(StandardCharsets.UTF_8), 48);
        e = assertThrows(IllegalArgumentException.class, () -> PtxRegisterCap.apply(once, 40));
        assertEquals("PTX entry at offset " + PTX.indexOf(".entry") + " already has a .maxnreg directive", e.getMessage());
    }
}
