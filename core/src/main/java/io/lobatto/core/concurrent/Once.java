package io.lobatto.core.concurrent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * A value made on first use, by the first caller, without holding a lock while it is made: the lazy fields of meshes and
 * operators (positions, numbering, geometric factors, the host Z). Such values are made by parallel loops on the common
 * fork-join pool, and their first use can come from inside such a loop: a pool worker blocked on a monitor held by the
 * maker could not run the maker's own loop tasks (a deadlock with one worker, as on 2 cores). Here a caller that finds
 * the value being made waits through {@link CompletableFuture#join()}, which the pool treats as a managed block and
 * covers with a spare worker.
 *
 * <p>If making the value throws, the callers waiting for it get that exception and the next call tries again.
 *
 * @param <T> the value's type
 */
public final class Once<T> {

    /** An empty holder: the first {@link #get} makes the value. */
    public Once() {
    }

    private final AtomicReference<CompletableFuture<T>> value = new AtomicReference<>();

    /**
     * The value, made by {@code make} if no caller has made it yet; a caller that finds it being made waits for it.
     *
     * @param make makes the value (called at most once per success, never under a lock)
     * @return the value
     */
    public T get(Supplier<T> make) {
        CompletableFuture<T> f = value.get();
        if (f == null) {
            CompletableFuture<T> mine = new CompletableFuture<>();
            if (value.compareAndSet(null, mine)) {
                try {
                    T v = make.get();
                    mine.complete(v);
                    return v;
                } catch (RuntimeException | Error e) {
                    value.set(null);
                    mine.completeExceptionally(e);
                    throw e;
                }
            }
            f = value.get();
            if (f == null) {          // the maker failed in between: try again
                return get(make);
            }
        }
        return join(f);
    }

    /**
     * Waits for {@code f} as {@link CompletableFuture#join()} does (a managed block on a fork-join pool) and returns its
     * value; if it failed, rethrows the exception it failed with rather than the {@link CompletionException} around it.
     *
     * @param f the future
     * @param <V> its value's type
     * @return its value
     */
    public static <V> V join(CompletableFuture<V> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }
}
