/**
 * Concurrency helpers of the library's lazy values: {@link io.lobatto.core.concurrent.Once}, a value made on first use
 * without a lock held while it is made, so that first uses from inside parallel loops cannot deadlock the fork-join
 * pool.
 */
package io.lobatto.core.concurrent;
