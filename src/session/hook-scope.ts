/** The part of Node's `AsyncLocalStorage` the scope uses. */
export interface AsyncStorage {
  run<R>(store: object, callback: () => R): R;
  getStore(): unknown;
}

/**
 * Node's `AsyncLocalStorage` where the runtime has one (Node 20.16 and later, Bun, Deno),
 * found without a static import so that the main entry still bundles for other runtimes.
 */
export function asyncStorage(): AsyncStorage | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  if (typeof runtime?.getBuiltinModule !== "function") return undefined;
  const hooks = runtime.getBuiltinModule("node:async_hooks") as
    | { AsyncLocalStorage?: new () => AsyncStorage }
    | undefined;
  return hooks?.AsyncLocalStorage === undefined ? undefined : new hooks.AsyncLocalStorage();
}

/**
 * One storage for every scope, made on first use: on Node 20 each `AsyncLocalStorage` that has
 * run costs every promise created afterwards, for as long as the process lives.
 */
let shared: AsyncStorage | null | undefined;
const sharedStorage = (): AsyncStorage | null => {
  shared ??= asyncStorage() ?? null;
  return shared;
};

/** The hook calls the current code runs inside, innermost first. */
interface HookFrame {
  token: object;
  outer: unknown;
}

/**
 * Tells whether code runs inside one of a session's `beforeCompact` hooks: a compaction the
 * hook starts and awaits would wait for the compaction that waits for the hook. With
 * `AsyncLocalStorage` it knows the hook's own calls (and what they start, through other
 * sessions' hooks too) from anyone else's, who then simply wait their turn; without it, every
 * call made while a hook runs counts as the hook's.
 */
export class HookScope {
  readonly #storage: AsyncStorage | null;
  /** One token per hook call running. */
  readonly #running = new Set<object>();

  /** `storage`: `null` to go without (as on a runtime that has none). @default the shared one */
  constructor(storage: AsyncStorage | null = sharedStorage()) {
    this.#storage = storage;
  }

  /**
   * Runs `hook` inside the scope, until it settles or `until` does: a hook the session stopped
   * waiting for (it outlived its time limit) runs on outside it, so it blocks no later call.
   */
  async run<T>(hook: () => Promise<T>, until?: Promise<unknown>): Promise<T> {
    const token = {};
    this.#running.add(token);
    void until?.then(() => this.#running.delete(token));
    try {
      if (this.#storage === null) return await hook();
      const frame: HookFrame = { token, outer: this.#storage.getStore() };
      return await this.#storage.run(frame, hook);
    } finally {
      this.#running.delete(token);
    }
  }

  /** Whether the caller runs inside a hook call of this scope that has not returned yet. */
  get active(): boolean {
    if (this.#storage === null) return this.#running.size > 0;
    for (let frame = this.#storage.getStore(); isFrame(frame); frame = frame.outer)
      if (this.#running.has(frame.token)) return true;
    return false;
  }
}

function isFrame(value: unknown): value is HookFrame {
  return typeof value === "object" && value !== null && "token" in value;
}
