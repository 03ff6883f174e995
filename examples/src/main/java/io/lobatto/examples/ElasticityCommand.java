package io.lobatto.examples;

import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.physics.IsotropicElasticity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code lobatto elasticity}: linear isotropic elasticity -div sigma(u) = f for a 3-component displacement with
 * the Lame parameters lambda and mu, the manufactured displacement of {@link ElasticitySolution} (zero on the
 * boundary of the unit cube), Dirichlet conditions on every component of the tagged boundary, discretised with the
 * user-operator API ({@link IsotropicElasticity}) and solved with CG.
 */
@Command(name = "elasticity", mixinStandardHelpOptions = true, versionProvider = LobattoCli.Version.class,
        description = "Solve linear isotropic elasticity -div σ(u) = f (3-component manufactured displacement, clamped "
                + "boundary) with the pointwise IsotropicElasticity operator and CG; report the error.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:converged", "1:error (one line 'lobatto: error: ...' on stderr; --stacktrace shows the trace)",
            "2:CG stopped at --max-it without converging"})
final class ElasticityCommand extends PointwiseCommand {

    @Option(names = "--lambda", defaultValue = "2", description = "Lame's first parameter λ. Default: ${DEFAULT-VALUE}")
    double lambda;

    @Option(names = "--mu", defaultValue = "1", description = "the shear modulus μ > 0. Default: ${DEFAULT-VALUE}")
    double mu;

    @Override
    String name() {
        return "elasticity";
    }

    @Override
    void checkPhysics() {
        if (!(mu > 0) || !Double.isFinite(mu)) {
            throw new IllegalArgumentException("--mu must be > 0, got " + mu);
        }
        if (!(lambda + 2 * mu / 3 > 0) || !Double.isFinite(lambda)) {
            throw new IllegalArgumentException("--lambda " + lambda + " with --mu " + mu + " gives a bulk modulus λ + 2μ/3 <= 0: "
                    + "the operator is not positive definite; use λ > -2μ/3");
        }
    }

    @Override
    String describePhysics() {
        return "Lame lambda " + lambda + ", mu " + mu;
    }

    @Override
    PointwiseProblem problem(SpectralElementMesh mesh) {
        return new PointwiseProblem(mesh, new IsotropicElasticity(), quadrature, IsotropicElasticity.setup(lambda, mu),
                new ElasticitySolution(lambda, mu));
    }
}
