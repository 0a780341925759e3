// Kafka's ExponentialBackoff (KIP-580): initial · multiplier^attempts, jittered by a uniform factor in
// [1 − jitter, 1 + jitter), truncated to whole ms and never above the maximum. The exponent stops growing at the
// one that reaches the maximum. Facts: KIP-580 (retry.backoff.ms growing to retry.backoff.max.ms);
// the formula from apache/kafka clients/.../common/utils/ExponentialBackoff.java, whose clients use multiplier 2
// and jitter 0.2 (CommonClientConfigs.RETRY_BACKOFF_EXP_BASE, RETRY_BACKOFF_JITTER).

export interface ExponentialBackoffOptions {
  initialMs: number;
  maxMs: number;
  multiplier?: number;
  jitter?: number;
}

/**
 * The backoff after `attempts` earlier tries (0 = the first backoff). `uniform` draws from [0, 1); the caller
 * passes a seeded stream so that a run replays exactly.
 */
export function exponentialBackoff(
  attempts: number,
  options: ExponentialBackoffOptions,
  uniform: () => number,
): number {
  const { maxMs, multiplier = 2, jitter = 0.2 } = options;
  const initialMs = Math.min(options.initialMs, maxMs);
  const expMax = maxMs > initialMs ? Math.log(maxMs / Math.max(initialMs, 1)) / Math.log(multiplier) : 0;
  if (expMax === 0) return initialMs;
  const term = initialMs * multiplier ** Math.min(attempts, expMax);
  const factor = jitter > 0 ? 1 - jitter + 2 * jitter * uniform() : 1;
  return Math.min(Math.floor(factor * term), maxMs);
}
