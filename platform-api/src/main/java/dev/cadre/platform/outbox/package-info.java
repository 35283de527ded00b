/**
 * The durable outbox: every outbound delivery (notifications, the escalation webhook, integrations)
 * is a row in the platform's database, written when what caused it is stored and attempted after
 * that commit by a worker that claims due rows under a lease, retries transient failures with
 * exponential backoff and jitter (honouring {@code Retry-After}), gives up on a refusal, and resumes
 * after a restart or a crash. Each request carries an {@code Idempotency-Key} the receiver can
 * de-duplicate on, since a crash between an attempt and its record means the attempt is made again.
 */
@NullMarked
package dev.cadre.platform.outbox;

import org.jspecify.annotations.NullMarked;
