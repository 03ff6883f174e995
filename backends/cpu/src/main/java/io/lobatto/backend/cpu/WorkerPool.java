package io.lobatto.backend.cpu;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A fixed set of daemon worker threads that run a {@link Body} over numbered chunks. The calling thread
 * takes part as worker 0, the pool's own threads are workers 1 .. threads-1; they stay alive between jobs,
 * spin briefly for the next one and then park, so that a job costs a few microseconds to start (a CG
 * iteration launches about a dozen) without making a busy machine busier.
 *
 * <p>Two ways to hand out chunks: {@link #run} hands them out dynamically (an atomic counter), so which
 * worker runs which chunk varies between calls; {@link #runPinned} gives chunk w to worker w, so a static
 * partition of the elements keeps each element on the same thread (and its data in that core's caches)
 * from one call to the next. Either way every chunk runs exactly once; deterministic results are the
 * caller's business (a reduction writes one partial per chunk and combines them in chunk order).
 *
 * <p>One job at a time: {@link #run} and {@link #runPinned} are {@code synchronized}, so a backend used from
 * several threads serialises its operations (and per-worker scratch is never shared between two jobs).
 */
final class WorkerPool implements AutoCloseable {

    /** A unit of parallel work: run chunk {@code chunk} on worker {@code worker} (0 .. threads-1). */
    @FunctionalInterface
    interface Body {
        void run(int worker, int chunk);
    }

    /**
     * Spin iterations (Thread.onSpinWait, a few microseconds) of a waiting thread before it parks. Short on
     * purpose: on a machine with more runnable threads than cores a spinning waiter holds the core that
     * the thread it waits for needs (measured on 2 shared cores: 20,000 spins made a small job 1 ms).
     */
    private static final int SPINS = 100;

    private final int threads;
    private final Thread[] helpers;
    private final AtomicInteger nextChunk = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private volatile int generation;
    private volatile Body body;
    private volatile int chunks;
    private volatile boolean pinned;
    private volatile int helpersUsed;
    private volatile Throwable failure;
    private volatile Thread caller;
    private volatile boolean closed;

    WorkerPool(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        }
        this.threads = threads;
        this.helpers = new Thread[threads - 1];
        for (int w = 1; w < threads; w++) {
            final int worker = w;
            Thread t = new Thread(() -> loop(worker), "lobatto-cpu-" + w);
            t.setDaemon(true);
            helpers[w - 1] = t;
            t.start();
        }
    }

    int threads() {
        return threads;
    }

    private void loop(int worker) {
        int seen = 0;
        while (true) {
            int spins = 0;
            while (generation == seen && !closed) {
                spins = pause(spins);
            }
            if (closed) {
                return;
            }
            seen = generation;
            if (worker <= helpersUsed) {
                work(worker);
                if (running.decrementAndGet() == 0) {
                    LockSupport.unpark(caller);
                }
            }
        }
    }

    /** One wait step: spin, then park (until unparked); returns the steps taken so far. */
    private int pause(int steps) {
        if (steps < SPINS) {
            Thread.onSpinWait();
            return steps + 1;
        }
        LockSupport.park(this);
        return steps;
    }

    private void work(int worker) {
        Body b = body;
        int n = chunks;
        try {
            if (pinned) {
                if (worker < n) {
                    b.run(worker, worker);
                }
                return;
            }
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

    /** Runs {@code body} for every chunk 0 .. chunks-1, handed out dynamically, and returns when all have finished. */
    synchronized void run(int chunks, Body body) {
        start(chunks, body, false);
    }

    /**
     * Runs chunk w on worker w for w < {@code chunks} (at most {@link #threads()}): a static partition.
     *
     * @throws IllegalArgumentException if {@code chunks > threads()}
     */
    synchronized void runPinned(int chunks, Body body) {
        if (chunks > threads) {
            throw new IllegalArgumentException("runPinned: chunks must be <= threads = " + threads + ", got " + chunks);
        }
        start(chunks, body, true);
    }

    private void start(int chunks, Body body, boolean pinned) {
        if (closed) {
            throw new IllegalStateException("backend is closed");
        }
        if (chunks <= 0) {
            return;
        }
        int used = Math.min(threads, chunks) - 1;
        if (used == 0) {
            for (int c = 0; c < chunks; c++) {
                body.run(0, c);
            }
            return;
        }
        this.body = body;
        this.chunks = chunks;
        this.pinned = pinned;
        this.helpersUsed = used;
        this.failure = null;
        this.caller = Thread.currentThread();
        nextChunk.set(0);
        running.set(used);
        generation++; // publishes the fields above to the helpers
        for (int h = 0; h < used; h++) {
            LockSupport.unpark(helpers[h]);
        }
        work(0);
        boolean interrupted = false;
        int spins = 0;
        while (running.get() != 0) {
            spins = pause(spins);
            if (spins >= SPINS && Thread.interrupted()) {
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
            for (Thread t : helpers) {
                LockSupport.unpark(t);
            }
        }
    }
}
