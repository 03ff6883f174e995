/**
 * The {@code lobatto-bench} program ({@link io.lobatto.bench.BenchCli}): the streaming benchmarks BS1-BS7
 * with the T(B) = T0 + B/Wmax fit, the element-operator benchmarks BK1, BK3 and BK5 against the empirical
 * roofline, the assembled-operator and BP solve benchmarks, NekBone and the per-launch cost analysis, on any
 * backend, written as JSON and CSV and plotted to PNG. Speed is measured here, never in unit tests.
 */
package io.lobatto.bench;
