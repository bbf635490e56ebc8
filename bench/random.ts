/** A seeded pseudo-random source: the same seed gives the same sequence on every machine. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** Whether an event of probability `p` happens. */
  chance(p: number): boolean;
  /** A standard normal variate (Box-Muller). */
  normal(): number;
  /** A log-normal variate with the given median and 99th percentile. */
  logNormal(median: number, p99: number): number;
}

const Z_99 = 2.326_347_874;

/** mulberry32: tiny, fast, and good enough for workloads (not for cryptography). */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const normal = (): number => {
    const u = Math.max(next(), Number.EPSILON);
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    chance: (p) => next() < p,
    normal,
    logNormal: (median, p99) => {
      const sigma = Math.log(p99 / median) / Z_99;
      return median * Math.exp(sigma * normal());
    },
  };
}

/** Derives a seed for a sub-stream, so adding a workload never shifts another's numbers. */
export function deriveSeed(seed: number, ...parts: (string | number)[]): number {
  let hash = (seed ^ 0x811c9dc5) >>> 0;
  for (const character of parts.join("|")) {
    hash ^= character.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
