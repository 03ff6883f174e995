package io.lobatto.backend.aparapi;

import io.lobatto.backend.aparapi.kernels.ElementOperands;

/**
 * The device's atomic double add y_G[id] += v of the one-kernel operator with atomics ({@link ElementOperands#ATOMIC}):
 * the translated body of {@code ElementOperands.addToGlobal} is replaced, in every element kernel's source, by a
 * preprocessor choice on the build constant {@code fromGlobal}:
 * <ul>
 *   <li>{@link ElementOperands#ATOMIC_PTX} (and {@link ElementOperands#ATOMIC_PTX_DIR}, {@link ElementOperands#ATOMIC_PTX_DOT}, {@link ElementOperands#ATOMIC_PTX_DOT_DEVICE}): NVIDIA's {@code red.global.add.f64} as inline PTX (sm_60 and later), the
 *       instruction CUDA's {@code atomicAdd(double*, double)} compiles to;</li>
 *   <li>{@link ElementOperands#ATOMIC} (and {@link ElementOperands#ATOMIC_DIR}, {@link ElementOperands#ATOMIC_DOT}, {@link ElementOperands#ATOMIC_DOT_DEVICE}): a compare-and-swap loop on the 64-bit pattern ({@code cl_khr_int64_base_atomics}),
 *       for any OpenCL device with that extension;</li>
 *   <li>any other mode: the plain sum (the helper is then never called).</li>
 * </ul>
 */
final class AtomicAdd {

    /** The helper's translated signature, after Aparapi's class prefix. */
    static final String HELPER = "_ElementOperands__addToGlobal(This *this, int id, double v){";

    private AtomicAdd() {
    }

    /** {@code generic} (Aparapi's translation of an element kernel) with the helper's body replaced; unchanged without it. */
    static String splice(String generic) {
        int at = generic.indexOf(HELPER);
        if (at < 0) {
            return generic;
        }
        int open = at + HELPER.length();
        int close = generic.indexOf("\n}", open);
        if (close < 0) {
            throw new IllegalStateException("aparapi: the translated addToGlobal has no closing brace");
        }
        int lineStart = generic.lastIndexOf('\n', at) + 1;
        String cas = "LB_FROM_GLOBAL == " + ElementOperands.ATOMIC + " || LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_DIR
                + " || LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_DOT + " || LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_DOT_DEVICE;
        String ptx = "LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_PTX + " || LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_PTX_DIR
                + " || LB_FROM_GLOBAL == " + ElementOperands.ATOMIC_PTX_DOT + " || LB_FROM_GLOBAL == "
                + ElementOperands.ATOMIC_PTX_DOT_DEVICE;
        String pragma = "#if " + cas + "\n"
                + "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
                + "#endif\n";
        String body = "\n#if " + ptx + "\n"
                + "   asm volatile(\"red.global.add.f64 [%0], %1;\" :: \"l\"(this->yG + id), \"d\"(v) : \"memory\");\n"
                + "#elif " + cas + "\n"
                + "   volatile __global ulong *p = (volatile __global ulong *)(this->yG + id);\n"
                + "   ulong seen = *p;\n"
                + "   ulong expected;\n"
                + "   do {\n"
                + "      expected = seen;\n"
                + "      seen = atom_cmpxchg(p, expected, as_ulong(as_double(expected) + v));\n"
                + "   } while (seen != expected);\n"
                + "#else\n"
                + "   this->yG[id] = this->yG[id] + v;\n"
                + "#endif";
        return generic.substring(0, lineStart) + pragma + generic.substring(lineStart, open) + body + generic.substring(close);
    }
}
