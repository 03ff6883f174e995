/**
 * The conformance suites that every backend runs (JUnit 5 tests, the properties among them run by QuickTheories inside them): the streaming kernels, gather and
 * scatter, the element and fused assembled operators against dense EJML references, the properties every
 * assembled operator must have (symmetry, positivity, exact integrals of polynomials) and the conjugate
 * gradient solver. A backend module subclasses each suite in its tests and returns its backend; the Java
 * {@code cpu} backend is the reference the others are compared with.
 */
package io.lobatto.conformance;
