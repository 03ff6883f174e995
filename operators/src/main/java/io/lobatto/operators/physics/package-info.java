/**
 * Built-in pointwise functions with their setups: the (vector) mass and diffusion of CEED's BP1-BP6, the screened
 * diffusion of Lobatto's BP3.5/BP3.0, and linear isotropic elasticity. Each is a
 * {@link io.lobatto.core.pointwise.PointwiseFunction} in the translatable subset, and a template for users' own.
 */
package io.lobatto.operators.physics;
