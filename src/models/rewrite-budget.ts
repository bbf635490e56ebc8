import type { ResolvedModelPricing } from "./model-pricing.js";

/**
 * When a compaction repays its rewrite of the prompt cache, decided request by request from the
 * prices. A compaction down to `floorTokens` makes the next request write those tokens to the
 * cache (`cacheWrite5mMultiplier` each) instead of reading the whole context; every request
 * before it pays `cacheReadMultiplier` for each token above the floor. Compacting once those
 * extra reads since the last rewrite reach the cost of the next rewrite is the rent-or-buy
 * balance: with a context growing g tokens a request, it compacts at floor + √(2·w·floor·g / r)
 * tokens (the cheapest trigger for a steady run, about 0.3 of a 200k window at 0.1x reads and
 * 0.5 at 0.025x for a floor of 10%), and it never compacts for a growth the reads have not paid.
 */
export class RewriteBudget {
  readonly #read: number;
  readonly #write: number;
  readonly #floor: number;
  /** Reads above the floor since the last rewrite, in input-token units. */
  #extraReads = 0;
  /** The conversation's generation at the last request (a rewrite bumps it). */
  #generation: number | undefined;

  /** `floorTokens`: the context a compaction leaves (the target of the compactor it times). */
  constructor(pricing: ResolvedModelPricing, floorTokens: number) {
    this.#read = pricing.cacheReadMultiplier;
    this.#write = pricing.cacheWrite5mMultiplier;
    this.#floor = floorTokens;
  }

  /**
   * One request of `contextUsed` tokens: what it read above the floor. `generation` (the
   * history's, bumped by every rewrite) starts the count again after a rewrite this budget did
   * not see, another worker's on a shared store.
   */
  observe(contextUsed: number, generation?: number): void {
    if (generation !== undefined && generation !== this.#generation) {
      if (this.#generation !== undefined) this.#extraReads = 0;
      this.#generation = generation;
    }
    this.#extraReads += this.#read * Math.max(0, contextUsed - this.#floor);
  }

  /** Whether the reads since the last rewrite paid for a rewrite down to the floor. */
  get repaid(): boolean {
    return this.#extraReads > 0 && this.#extraReads >= this.#write * this.#floor;
  }

  /** A compaction (or a trim) rewrote the cache: count from here. */
  reset(): void {
    this.#extraReads = 0;
  }
}
