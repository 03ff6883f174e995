package io.lobatto.examples;

import io.lobatto.core.mesh.SpectralElementMesh;
import io.lobatto.operators.physics.Diffusion;
import picocli.CommandLine.Command;

/**
 * {@code lobatto diffusion}: the variable-coefficient diffusion -div(kappa grad u) = f with
 * kappa = 1 + sin(πx) sin(πy) sin(πz) / 2 and the manufactured u = sin(πx) sin(πy) sin(πz)
 * ({@link DiffusionSolution}), discretised with the user-operator API ({@link Diffusion} with
 * {@code Diffusion.setup(kappa)}) and solved with CG.
 */
@Command(name = "diffusion", mixinStandardHelpOptions = true, versionProvider = LobattoCli.Version.class,
        description = "Solve -div(κ grad u) = f, κ = 1 + sin(πx)sin(πy)sin(πz)/2 (manufactured u = sin(πx)sin(πy)sin(πz)), "
                + "with the pointwise Diffusion operator and CG; report the error.",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:converged", "1:error (one line 'lobatto: error: ...' on stderr; --stacktrace shows the trace)",
            "2:CG stopped at --max-it without converging"})
final class DiffusionCommand extends PointwiseCommand {

    @Override
    String name() {
        return "diffusion";
    }

    @Override
    void checkPhysics() {
        // kappa is fixed and positive
    }

    @Override
    String describePhysics() {
        return "kappa = 1 + sin(pi x) sin(pi y) sin(pi z) / 2";
    }

    @Override
    PointwiseProblem problem(SpectralElementMesh mesh) {
        DiffusionSolution exact = DiffusionSolution.standard();
        return new PointwiseProblem(mesh, new Diffusion(), quadrature, Diffusion.setup(exact::kappa), exact);
    }
}
