package io.lobatto.examples;

import io.lobatto.core.backend.Backend;
import io.lobatto.core.backend.Backends;
import picocli.CommandLine.Option;

/** The backend choice shared by the commands: {@code --backend best|cpu|aparapi}. */
final class BackendOptions {

    @Option(names = {"-b", "--backend"}, defaultValue = "best",
            description = "best (GPU if there is one; LOBATTO_BACKEND overrides), cpu or aparapi. Default: ${DEFAULT-VALUE}")
    String backend;

    Backend create() {
        return "best".equalsIgnoreCase(backend) ? Backends.best() : Backends.create(backend);
    }
}
