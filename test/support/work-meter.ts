import { Session } from "node:inspector";
import { pathToFileURL } from "node:url";

/**
 * Work counted in units no machine changes: how often each function's blocks ran (V8's precise
 * block coverage of the repository's own scripts) and how many characters or elements the
 * searching and copying built-ins went through (counted by wrapping them). The same call on the
 * same input counts the same on any machine, under any load.
 */
export interface WorkSample {
  /** Block executions of each function that ran, by `file:name@offset`. */
  blocks: Record<string, number>;
  /** Characters or elements each counted built-in scanned or copied, by name (`String.indexOf`). */
  builtins: Record<string, number>;
}

/** What one built-in call costs, from its receiver, arguments and result. */
type Cost = (self: unknown, args: unknown[], result: unknown) => number;

const lengthOf = (value: unknown): number =>
  typeof value === "string" || Array.isArray(value) ? value.length : 0;

/** The start of a forward search: `from` clamped to the receiver. */
const forwardFrom = (self: unknown, from: unknown): number =>
  Math.min(Math.max(Math.trunc(Number(from ?? 0)) || 0, 0), lengthOf(self));

const NATIVE_STRING_INDEX_OF = String.prototype.indexOf;
const NATIVE_ARRAY_INDEX_OF = Array.prototype.indexOf;

/** Characters an `indexOf` scanned: to the end of what it found, or to the end of the text. */
const indexOfCost: Cost = (self, args, result) => {
  const from = forwardFrom(self, args[1]);
  const found = Number(result);
  return found >= 0 ? found - from + Math.max(lengthOf(args[0]), 1) : lengthOf(self) - from;
};

/** Characters a `lastIndexOf` scanned, backwards from `from`. */
const lastIndexOfCost: Cost = (self, args, result) => {
  const length = lengthOf(self);
  const from = args[1] === undefined ? length : forwardFrom(self, args[1]);
  const found = Number(result);
  return found >= 0 ? from - found + 1 : from;
};

/** `includes` scans as `indexOf` does; where it stopped, the native `indexOf` tells. */
const includesCost =
  (indexOf: (this: unknown, ...args: unknown[]) => number): Cost =>
  (self, args) =>
    indexOfCost(self, args, indexOf.apply(self, args));

const wholeReceiver: Cost = (self) => lengthOf(self);
const wholeResult: Cost = (_self, _args, result) => lengthOf(result);

const NATIVE_SEARCH = String.prototype.search;

/** Where `regexp` first matches in `text`, without moving its `lastIndex` (-1: nowhere). */
const firstMatch = (text: unknown, regexp: RegExp): number =>
  NATIVE_SEARCH.call(String(text), regexp);

/**
 * Characters a search with a regular expression or a string went through: to the end of its
 * first match when it stops there, else to the end of the text. Backtracking inside one match
 * is not counted here: a run with the V8 flags of {@link backtrackFlags} reports it.
 */
const patternScan =
  (stopsAtFirst: (pattern: unknown) => boolean): Cost =>
  (self, args) => {
    const pattern = args[0];
    const length = lengthOf(self);
    if (!stopsAtFirst(pattern)) return length;
    const found =
      pattern instanceof RegExp
        ? firstMatch(self, pattern)
        : NATIVE_STRING_INDEX_OF.call(self, String(pattern));
    return found >= 0 ? found + 1 : length;
  };
const scanToFirst = patternScan(() => true);
const scanWhole = patternScan(() => false);
const scanToFirstUnlessGlobal = patternScan(
  (pattern) => !(pattern instanceof RegExp && pattern.global),
);

/** `RegExp.prototype.test`: from `lastIndex` for a global or sticky one, else from the start. */
function testScan(regexp: RegExp, text: string, startIndex: number, found: boolean): number {
  if (regexp.global || regexp.sticky)
    return found ? regexp.lastIndex - startIndex + 1 : regexp.sticky ? 1 : text.length - startIndex;
  if (!found) return text.length;
  return firstMatch(text, regexp) + 1;
}

/**
 * V8 flags under which a regular expression that backtracks more than `limit` times in one
 * match is rerun on V8's linear engine, and that rerun is printed on stdout ("Experimental
 * execution … of regexp …"). Without `--no-regexp-optimization` V8 steps back through a greedy
 * loop over a character class without counting it (`/[.]+$/` on dots then a letter). Only the
 * patterns the linear engine can run are counted (no lookbehind, no `i` flag on Node 20); with
 * `--enable-experimental-regexp-engine`, `new RegExp(source, flags + "l")` tells which.
 */
export function backtrackFlags(limit: number): string[] {
  return [
    "--no-regexp-optimization",
    "--enable-experimental-regexp-engine",
    "--enable-experimental-regexp-engine-on-excessive-backtracks",
    `--regexp-backtracks-before-fallback=${limit}`,
    "--trace-experimental-regexp-engine",
  ];
}

/**
 * The sources of the regular expressions a run's stdout says V8 moved to its linear engine,
 * each once (V8 prints a backslash doubled).
 */
export function backtrackedPatterns(stdout: string): string[] {
  const lines = stdout.matchAll(/^Experimental execution[^\n]*<String\[\d+\]: #?([^\n]*)>$/gm);
  return [...new Set([...lines].map((match) => (match[1] ?? "").replaceAll("\\\\", "\\")))];
}

/**
 * Starts counting work in this process (the built-ins stay wrapped until {@link WorkMeter.stop}).
 * Only the scripts under `root` (not its node_modules) are read for block counts.
 */
export class WorkMeter {
  readonly #session = new Session();
  readonly #root: string;
  readonly #restore: (() => void)[] = [];
  readonly #parts: Record<string, number> = {};
  readonly #patterns = new Map<string, RegExp>();
  #counting = false;

  constructor(root: string) {
    this.#root = pathToFileURL(root).href;
    this.#session.connect();
    this.#post("Profiler.enable");
    this.#post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });
    this.#wrapBuiltins();
  }

  /** The regular expressions that ran while counting, each once (by source and flags). */
  get patterns(): RegExp[] {
    return [...this.#patterns.values()];
  }

  /** Runs `run` and counts its work: the blocks that ran and what the built-ins went through. */
  async measure(run: () => unknown): Promise<WorkSample> {
    this.#takeBlocks();
    for (const name of Object.keys(this.#parts)) this.#parts[name] = 0;
    this.#counting = true;
    try {
      await run();
    } finally {
      this.#counting = false;
    }
    return { blocks: this.#takeBlocks(), builtins: { ...this.#parts } };
  }

  /** Puts the built-ins back and ends the coverage. */
  stop(): void {
    for (const restore of this.#restore.splice(0)) restore();
    this.#post("Profiler.stopPreciseCoverage");
    this.#session.disconnect();
  }

  /** Block executions since the last call, by function; the counters start again from zero. */
  #takeBlocks(): Record<string, number> {
    const { result } = this.#post("Profiler.takePreciseCoverage") as {
      result: {
        url: string;
        functions: { functionName: string; ranges: { startOffset: number; count: number }[] }[];
      }[];
    };
    const blocks: Record<string, number> = {};
    for (const script of result) {
      if (!script.url.startsWith(this.#root) || script.url.includes("/node_modules/")) continue;
      if (script.url === import.meta.url) continue;
      const file = script.url.slice(this.#root.length + 1);
      for (const { functionName, ranges } of script.functions) {
        const count = ranges.reduce((sum, range) => sum + range.count, 0);
        if (count === 0) continue;
        const key = `${file}:${functionName || "(anonymous)"}@${ranges[0]?.startOffset ?? 0}`;
        blocks[key] = (blocks[key] ?? 0) + count;
      }
    }
    return blocks;
  }

  /** An inspector call, answered before `post` returns (the session is this thread's own). */
  #post(method: string, params?: object): unknown {
    let answer: { error: Error | null; result: unknown } | undefined;
    this.#session.post(method, params ?? {}, (error, result) => {
      answer = { error, result };
    });
    if (answer === undefined) throw new Error(`${method}: no synchronous answer`);
    if (answer.error) throw answer.error;
    return answer.result;
  }

  #wrapBuiltins(): void {
    const strings = String.prototype as unknown as Record<string, unknown>;
    const arrays = Array.prototype as unknown as Record<string, unknown>;
    this.#wrap(strings, "String", "indexOf", indexOfCost);
    this.#wrap(strings, "String", "lastIndexOf", lastIndexOfCost);
    this.#wrap(strings, "String", "includes", includesCost(NATIVE_STRING_INDEX_OF as never));
    this.#wrap(strings, "String", "search", scanToFirst);
    this.#wrap(strings, "String", "match", scanToFirstUnlessGlobal);
    this.#wrap(strings, "String", "replace", scanToFirstUnlessGlobal);
    for (const name of ["split", "replaceAll", "matchAll"])
      this.#wrap(strings, "String", name, scanWhole);
    this.#wrap(arrays, "Array", "indexOf", indexOfCost);
    this.#wrap(arrays, "Array", "lastIndexOf", lastIndexOfCost);
    this.#wrap(arrays, "Array", "includes", includesCost(NATIVE_ARRAY_INDEX_OF as never));
    for (const name of ["shift", "unshift", "splice"])
      this.#wrap(arrays, "Array", name, wholeReceiver);
    for (const name of ["slice", "concat"]) this.#wrap(arrays, "Array", name, wholeResult);
    const json = JSON as unknown as Record<string, unknown>;
    this.#wrap(json, "JSON", "stringify", wholeResult);
    this.#wrapTest();
  }

  #wrap(owner: Record<string, unknown>, ownerName: string, name: string, cost: Cost): void {
    const native = owner[name] as (this: unknown, ...args: unknown[]) => unknown;
    const part = `${ownerName}.${name}`;
    const meter = this;
    this.#parts[part] = 0;
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      const result = native.apply(this, args);
      if (meter.#counting) {
        meter.#counting = false;
        if (args[0] instanceof RegExp)
          meter.#patterns.set(`/${args[0].source}/${args[0].flags}`, args[0]);
        meter.#parts[part] = (meter.#parts[part] ?? 0) + cost(this, args, result);
        meter.#counting = true;
      }
      return result;
    };
    Object.defineProperty(owner, name, { value: wrapped, writable: true, configurable: true });
    this.#restore.push(() =>
      Object.defineProperty(owner, name, { value: native, writable: true, configurable: true }),
    );
  }

  // Not `exec`: with it replaced, V8 takes its slow path for every regular expression method
  // (ten times slower here); `test` and the string methods leave that path alone.
  #wrapTest(): void {
    const proto = RegExp.prototype;
    const native = proto.test;
    const meter = this;
    this.#parts["RegExp.test"] = 0;
    proto.test = function (this: RegExp, text: string): boolean {
      const startIndex = this.lastIndex;
      const found = native.call(this, text);
      if (meter.#counting) {
        meter.#counting = false;
        meter.#patterns.set(`/${this.source}/${this.flags}`, this);
        meter.#parts["RegExp.test"] =
          (meter.#parts["RegExp.test"] ?? 0) + testScan(this, String(text), startIndex, found);
        meter.#counting = true;
      }
      return found;
    };
    this.#restore.push(() => {
      proto.test = native;
    });
  }
}

/** How {@link outgrown} judges two samples. */
export interface GrowthLimit {
  /** How many times larger the input of the larger sample is. */
  growth: number;
  /** The most a count may grow, as a multiple of `growth` (`growth²` is quadratic). */
  factor: number;
  /** What any count may gain besides, whatever it was: a few calls more are no trend. */
  allowance: number;
}

/**
 * What grew more than linearly between two samples of the same run, the larger one on an input
 * `growth` times larger: each function's block count and each built-in's count above `factor ×
 * growth` times its count in the smaller sample plus `allowance`, as `name: before -> after`.
 * Linear work grows `growth` times (less where the library cuts its input), quadratic `growth²`.
 */
export function outgrown(small: WorkSample, large: WorkSample, limit: GrowthLimit): string[] {
  const grew = (name: string, before: number, after: number) =>
    after > limit.factor * limit.growth * before + limit.allowance
      ? [`${name}: ${before} -> ${after} (${(after / Math.max(before, 1)).toFixed(1)}x)`]
      : [];
  const blocks = Object.entries(large.blocks).flatMap(([name, after]) =>
    grew(name, small.blocks[name] ?? 0, after),
  );
  const builtins = Object.entries(large.builtins).flatMap(([name, after]) =>
    grew(name, small.builtins[name] ?? 0, after),
  );
  return [...blocks, ...builtins];
}
