package io.lobatto.backend.cpu;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed set of daemon worker threads that run a {@link Body} over {@code chunks} numbered chunks.
 * The calling thread takes part as worker 0, the pool supplies workers 1 .. threads-1; chunks are
 * handed out dynamically (an atomic counter), so which worker runs which chunk varies between calls,
 * but every chunk runs exactly once. Deterministic results are the caller's business: a reduction
 * writes one partial per chunk and combines the partials in chunk order afterwards.
 *
 * <p>One job at a time: {@link #run} is {@code synchronized}, so a backend used from several threads
 * serialises its operations (and per-worker scratch is never shared between two jobs).
 */
final class WorkerPool implements AutoCloseable {

    /** A unit of parallel work: run chunk {@code chunk} on worker {@code worker} (0 .. threads-1). */
    @FunctionalInterface
    interface Body {
        void run(int worker, int chunk);
    }

    private final int threads;
    private final ExecutorService executor;
    private final Runnable[] helpers;
    private final AtomicInteger nextChunk = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private volatile Body body;
    private volatile int chunks;
    private volatile Throwable failure;
    private volatile Thread caller;
    private boolean closed;

    WorkerPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.threads = threads;
        if (threads == 1) {
            executor = null;
            helpers = new Runnable[0];
            return;
        }
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = r -> {
            Thread t = new Thread(r, "lobatto-cpu-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
        executor = Executors.newFixedThreadPool(threads - 1, factory);
        helpers = new Runnable[threads - 1];
        for (int w = 1; w < threads; w++) {
            final int worker = w;
            helpers[w - 1] = () -> {
                try {
                    work(worker);
                } finally {
                    if (running.decrementAndGet() == 0) {
                        LockSupport.unpark(caller);
                    }
                }
            };
        }
    }

    int threads() {
        return threads;
    }

    private void work(int worker) {
        Body b = body;
        int n = chunks;
        try {
            for (int c = nextChunk.getAndIncrement(); c < n; c = nextChunk.getAndIncrement()) {
                b.run(worker, c);
            }
        } catch (Throwable t) {
            if (failure == null) {
                failure = t;
            }
            nextChunk.set(n); // stop handing out chunks
        }
    }

    /** Runs {@code body} for every chunk 0 .. chunks-1 and returns when all have finished. */
    synchronized void run(int chunks, Body body) {
        if (closed) {
            throw new IllegalStateException("backend is closed");
        }
        if (chunks <= 0) {
            return;
        }
        int helpersUsed = Math.min(threads, chunks) - 1;
        if (helpersUsed == 0) {
            for (int c = 0; c < chunks; c++) {
                body.run(0, c);
            }
            return;
        }
        this.body = body;
        this.chunks = chunks;
        this.failure = null;
        this.caller = Thread.currentThread();
        nextChunk.set(0);
        running.set(helpersUsed);
        for (int h = 0; h < helpersUsed; h++) {
            executor.execute(helpers[h]);
        }
        work(0);
        boolean interrupted = false;
        while (running.get() != 0) {
            LockSupport.park(this);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        this.body = null;
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable t = failure;
        if (t != null) {
            failure = null;
            if (t instanceof RuntimeException re) {
                throw re;
            }
            if (t instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(t);
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (executor != null) {
                executor.shutdown();
            }
        }
    }
}
