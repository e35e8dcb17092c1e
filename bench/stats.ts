/**
 * Small statistics helpers for the benchmarks: quantiles, a five-number summary, paired ratios
 * and interleaved A/B trial scheduling.
 */

/** Median, quartiles and range of a sample (all in the sample's own unit). */
export interface Summary {
  median: number;
  p25: number;
  p75: number;
  min: number;
  max: number;
  /** Number of values summarised. */
  count: number;
}

/**
 * The `q` quantile (0…1) of `values`, linear interpolation between closest ranks (the "R-7"
 * definition, as in NumPy's default).
 *
 * @throws Error for an empty sample or `q` outside 0…1.
 */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error('quantile of an empty sample');
  if (!(q >= 0 && q <= 1)) throw new Error(`quantile must be within 0…1, got ${q}`);
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] as number;
  const high = sorted[upper] as number;
  return low + (high - low) * (position - lower);
}

/** The median of `values` (see {@link quantile}). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Arithmetic mean. @throws Error for an empty sample. */
export function mean(values: readonly number[]): number {
  if (values.length === 0) throw new Error('mean of an empty sample');
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Median, p25, p75, min and max of `values`. */
export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    p25: quantile(values, 0.25),
    p75: quantile(values, 0.75),
    min: Math.min(...values),
    max: Math.max(...values),
    count: values.length,
  };
}

/** Element-wise `numerator[i] / denominator[i]` of two paired samples. */
export function pairedRatios(
  numerator: readonly number[],
  denominator: readonly number[],
): number[] {
  if (numerator.length !== denominator.length) {
    throw new Error(
      `paired samples differ in length (${numerator.length} vs ${denominator.length})`,
    );
  }
  return numerator.map((value, index) => value / (denominator[index] as number));
}

/**
 * Runs `trials` pairs of an A/B measurement, alternating which side goes first (ABBA…), so that
 * slow drift (thermal, other load) hits both sides alike. Returns both sides' values in trial
 * order.
 */
export async function interleave<T>(
  trials: number,
  runA: (trial: number) => Promise<T>,
  runB: (trial: number) => Promise<T>,
): Promise<{ a: T[]; b: T[] }> {
  const a: T[] = [];
  const b: T[] = [];
  for (let trial = 0; trial < trials; trial += 1) {
    if (trial % 2 === 0) {
      a.push(await runA(trial));
      b.push(await runB(trial));
    } else {
      b.push(await runB(trial));
      a.push(await runA(trial));
    }
  }
  return { a, b };
}

/** Least-squares slope of `y` over `x` (units of y per unit of x). */
export function slope(x: readonly number[], y: readonly number[]): number {
  const meanX = mean(x);
  const meanY = mean(y);
  let covariance = 0;
  let variance = 0;
  x.forEach((value, index) => {
    covariance += (value - meanX) * ((y[index] as number) - meanY);
    variance += (value - meanX) ** 2;
  });
  return variance === 0 ? 0 : covariance / variance;
}

/** Formats a summary as `median (p25–p75, min–max)` with `digits` decimals. */
export function formatSummary(summary: Summary, digits = 3): string {
  const format = (value: number): string => value.toFixed(digits);
  return (
    `${format(summary.median)} (p25–p75 ${format(summary.p25)}–${format(summary.p75)}, ` +
    `min–max ${format(summary.min)}–${format(summary.max)}, n=${summary.count})`
  );
}
