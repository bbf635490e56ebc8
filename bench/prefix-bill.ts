import { canonical, type WireMessage } from "./request-checks.js";

/**
 * Dollars of the real-runs part: every request, the agent's and each summary request, billed
 * against a prompt cache of units (the system prompt; then per message its role and each
 * block's JSON). A request reads the longest leading run of units it shares with the agent's
 * previous request or a summary request made since, at R x the input price, and writes the
 * rest at 1.25x; a summary's output costs 5x. Counted in characters; a token is 4.
 */

/** The cache read prices the part reports, as multiples of the input price. */
export const READ_PRICES = [0.1, 0.025] as const;
/** A cache write, as a multiple of the input price (5-minute writes). */
export const WRITE_PRICE = 1.25;
/** A summary's output, as a multiple of the input price. */
export const OUTPUT_PRICE = 5;
const CHARS_PER_TOKEN = 4;

/** A request as the cache sees it: its units and each unit's characters. */
export interface RequestUnits {
  units: string[];
  chars: number[];
  total: number;
}

/** What a run's requests read and wrote, in characters, and the summaries' output in tokens. */
export interface Bill {
  read: number;
  write: number;
  /** Summary output, in tokens. */
  output: number;
  summaryRead: number;
  summaryWrite: number;
  summaryCalls: number;
}

/** The units of a request of `messages` after `system`. */
export function requestUnits(system: string, messages: readonly WireMessage[]): RequestUnits {
  const units = [`system:${system}`];
  const chars = [system.length];
  for (const message of canonical(messages)) {
    units.push(`role:${message.role}`);
    chars.push(0);
    for (const block of message.content) {
      const json = JSON.stringify(block);
      units.push(json);
      chars.push(json.length);
    }
  }
  return { units, chars, total: chars.reduce((sum, count) => sum + count, 0) };
}

/** The characters of `request` read from the cache: its longest leading run shared with one of `cached`. */
export function readChars(cached: readonly RequestUnits[], request: RequestUnits): number {
  let best = 0;
  for (const previous of cached) {
    let read = 0;
    const shared = Math.min(previous.units.length, request.units.length);
    for (
      let index = 0;
      index < shared && previous.units[index] === request.units[index];
      index += 1
    )
      read += request.chars[index]!;
    best = Math.max(best, read);
  }
  return best;
}

/** A bill's cost at cache reads of `readPrice`, in input-token equivalents. */
export function costAt(bill: Bill, readPrice: number): number {
  return (
    (readPrice * bill.read + WRITE_PRICE * bill.write) / CHARS_PER_TOKEN +
    OUTPUT_PRICE * bill.output
  );
}

/** An empty bill. */
export function emptyBill(): Bill {
  return { read: 0, write: 0, output: 0, summaryRead: 0, summaryWrite: 0, summaryCalls: 0 };
}

/** The cache of one run and what its requests cost. */
export class PrefixBill {
  readonly bill = emptyBill();
  /** The agent's system prompt: a summary request sent as the conversation starts with it. */
  readonly system: string;
  #cached: RequestUnits[] = [];

  constructor(system: string) {
    this.system = system;
  }

  /** Bills one agent request; it and nothing else is now in the cache. */
  agentRequest(messages: readonly WireMessage[]): void {
    const units = requestUnits(this.system, messages);
    this.#charge(units);
    this.#cached = [units];
  }

  /** Bills a summary request (after `system`) and its output; it joins the cache. */
  summaryRequest(system: string, messages: readonly WireMessage[], outputChars: number): void {
    const units = requestUnits(system, messages);
    const read = this.#charge(units);
    this.bill.summaryRead += read;
    this.bill.summaryWrite += units.total - read;
    this.bill.summaryCalls += 1;
    this.bill.output += Math.ceil(outputChars / CHARS_PER_TOKEN);
    this.#cached.push(units);
  }

  #charge(units: RequestUnits): number {
    const read = readChars(this.#cached, units);
    this.bill.read += read;
    this.bill.write += units.total - read;
    return read;
  }
}
