package io.lobatto.backend.aparapi.conformance;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.lobatto.core.backend.BackendProvider;
import io.lobatto.core.backend.Backends;

/**
 * JUnit 5 condition for the suites whose properties run on the Aparapi backend: skips them when there is no
 * OpenCL device, unless {@code LOBATTO_REQUIRE_OPENCL=1}, in which case they run and fail. A property must not
 * meet the missing device inside its generator loop, where an aborted assumption would count as a falsified
 * case; plain JUnit tests may also use {@link AparapiFixture} directly.
 */
public final class SkipWithoutOpenCl implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (AparapiFixture.required()) {
            return ConditionEvaluationResult.enabled("LOBATTO_REQUIRE_OPENCL=1");
        }
        BackendProvider p = Backends.providers().stream().filter(x -> x.name().equals("aparapi")).findFirst().orElse(null);
        if (p == null || io.lobatto.backend.aparapi.OpenClDevices.list().isEmpty()) {
            return ConditionEvaluationResult.disabled("no OpenCL device for the Aparapi backend"
                    + (p == null ? "" : ": " + p.unavailableReason()));
        }
        return ConditionEvaluationResult.enabled("an OpenCL device is present");
    }
}
