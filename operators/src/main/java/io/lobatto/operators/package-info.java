/**
 * The matrix-free element operators of the CEED bake-off problems and the assembled operator built from
 * them: {@link io.lobatto.operators.MassOperator} (BP1.0), {@link io.lobatto.operators.StiffnessBp35} (BP3.5,
 * GLL collocation) and {@link io.lobatto.operators.StiffnessBp30} (BP3.0, Gauss-Legendre quadrature) act
 * element by element on element-local vectors; {@link io.lobatto.operators.AssembledOperator} applies
 * A = Z^T (L + shift W) Z on assembled vectors with hipBone's fused kernel. An element operator is host-side
 * data until it is bound to a {@link io.lobatto.core.backend.Backend}. Matrix-free diagonals (for Jacobi
 * preconditioning) and dense EJML references (for tests) live here too.
 */
package io.lobatto.operators;
