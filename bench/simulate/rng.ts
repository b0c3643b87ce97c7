/**
 * Seeded randomness for the simulator (the engine itself has none): one generator per scenario, so a
 * seed reproduces a run exactly.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
}

/** mulberry32: small, fast, and good enough for a discrete-event simulation. */
export function seededRng(seed: number): Rng {
  let s = seed >>> 0;
  return {
    next() {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

export function bernoulli(rng: Rng, p: number): boolean {
  return rng.next() < p;
}

/** Exponential with the given mean (Poisson inter-arrival times). */
export function exponential(rng: Rng, mean: number): number {
  return -Math.log(1 - rng.next()) * mean;
}

/** Log-normal with the given median and sigma (CI durations); sigma 0 gives the median exactly. */
export function logNormal(rng: Rng, median: number, sigma: number): number {
  if (sigma === 0) return median;
  const u = 1 - rng.next();
  const v = rng.next();
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return median * Math.exp(sigma * z);
}
