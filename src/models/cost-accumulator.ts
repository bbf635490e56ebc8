import { addUsage } from "../core/usage.js";
import { definePricing, type ModelPricing, type ResolvedModelPricing } from "./model-pricing.js";
import {
  type PriceUsageOptions,
  priceUsage,
  type TokenUsage,
  type UsageCost,
} from "./price-usage.js";

/** Running totals of one kind of request. */
export interface CostTotals {
  /** Requests counted. */
  count: number;
  /** Dollars, by kind of token and in total. */
  cost: UsageCost;
  /** Tokens, summed. */
  tokens: Required<TokenUsage>;
}

/** What a {@link CostAccumulator} has counted. */
export interface CostSummary {
  /** The agent's own requests. */
  requests: CostTotals;
  /** The compactions' own model calls (summaries, server-side compactions). */
  compactions: CostTotals;
  /** Both together. */
  total: CostTotals;
}

function emptyTotals(): CostTotals {
  return {
    count: 0,
    cost: { inputUsd: 0, cacheWriteUsd: 0, cacheReadUsd: 0, outputUsd: 0, totalUsd: 0 },
    tokens: {
      inputTokens: 0,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
      outputTokens: 0,
    },
  };
}

function add(totals: CostTotals, usage: TokenUsage, cost: UsageCost): void {
  totals.count += 1;
  totals.cost.inputUsd += cost.inputUsd;
  totals.cost.cacheWriteUsd += cost.cacheWriteUsd;
  totals.cost.cacheReadUsd += cost.cacheReadUsd;
  totals.cost.outputUsd += cost.outputUsd;
  totals.cost.totalUsd += cost.totalUsd;
  totals.tokens = addUsage(totals.tokens, usage);
}

function copy(totals: CostTotals): CostTotals {
  return { count: totals.count, cost: { ...totals.cost }, tokens: { ...totals.tokens } };
}

/**
 * Counts what a session costs in dollars: each agent request and each compaction's model calls,
 * priced with {@link priceUsage} as they are added, with totals per kind and overall.
 *
 * @example
 * const costs = new CostAccumulator(PRICING_PRESETS["claude-sonnet-5-5"]);
 * costs.addRequest(usageFromAnthropic(response.usage));
 * console.log(costs.summary().total.cost.totalUsd);
 */
export class CostAccumulator {
  /** The checked price table. */
  readonly pricing: ResolvedModelPricing;
  readonly #options: PriceUsageOptions;
  readonly #requests = emptyTotals();
  readonly #compactions = emptyTotals();

  /** @throws {ValidationError} naming the field when a price is invalid. */
  constructor(pricing: ModelPricing, options: PriceUsageOptions = {}) {
    this.pricing = definePricing(pricing);
    this.#options = { ...options };
  }

  /**
   * Counts one agent request; returns its cost.
   * @throws {ValidationError} when a token count is not a whole number ≥ 0 (nothing is counted).
   */
  addRequest(usage: TokenUsage): UsageCost {
    const cost = priceUsage(usage, this.pricing, this.#options);
    add(this.#requests, usage, cost);
    return cost;
  }

  /**
   * Counts one compaction's model calls (a `CompactionResult.usage`); returns their cost.
   * @throws {ValidationError} when a token count is not a whole number ≥ 0 (nothing is counted).
   */
  addCompaction(usage: TokenUsage): UsageCost {
    const cost = priceUsage(usage, this.pricing, this.#options);
    add(this.#compactions, usage, cost);
    return cost;
  }

  /** Dollars so far, requests and compactions together. */
  get totalUsd(): number {
    return this.#requests.cost.totalUsd + this.#compactions.cost.totalUsd;
  }

  /** A copy of the totals: per kind and overall. */
  summary(): CostSummary {
    const total = copy(this.#requests);
    const compactions = this.#compactions;
    total.count += compactions.count;
    for (const key of Object.keys(total.cost) as (keyof UsageCost)[]) {
      total.cost[key] += compactions.cost[key];
    }
    total.tokens = addUsage(total.tokens, compactions.tokens);
    return { requests: copy(this.#requests), compactions: copy(compactions), total };
  }
}
