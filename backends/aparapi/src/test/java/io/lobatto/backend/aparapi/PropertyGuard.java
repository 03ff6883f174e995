package io.lobatto.backend.aparapi;

/** Runs a test body that sets system properties (the backend's A/B switches), then puts them back as they were. */
final class PropertyGuard {

    private PropertyGuard() {
    }

    /** Runs {@code body}, then puts the system {@code properties} back as they were before it. */
    static void keeping(Runnable body, String... properties) {
        String[] before = new String[properties.length];
        for (int i = 0; i < properties.length; i++) {
            before[i] = System.getProperty(properties[i]);
        }
        try {
            body.run();
        } finally {
            for (int i = 0; i < properties.length; i++) {
                if (before[i] == null) {
                    System.clearProperty(properties[i]);
                } else {
                    System.setProperty(properties[i], before[i]);
                }
            }
        }
    }
}
