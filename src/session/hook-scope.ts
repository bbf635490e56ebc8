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
 * Tells whether code runs inside one of a session's `beforeCompact` hooks: a compaction the
 * hook starts and awaits would wait for the compaction that waits for the hook. With
 * `AsyncLocalStorage` it knows the hook's own calls (and what they start) from anyone else's,
 * who then simply wait their turn; without it, every call made while a hook runs counts as
 * the hook's.
 */
export class HookScope {
  readonly #storage: AsyncStorage | undefined;
  /** One token per hook call running. */
  readonly #running = new Set<object>();

  /** `storage`: `null` to go without (as on a runtime that has none). */
  constructor(storage: AsyncStorage | null = asyncStorage() ?? null) {
    this.#storage = storage ?? undefined;
  }

  /** Runs `hook` inside the scope. */
  async run<T>(hook: () => Promise<T>): Promise<T> {
    const token = {};
    this.#running.add(token);
    try {
      return await (this.#storage === undefined ? hook() : this.#storage.run(token, hook));
    } finally {
      this.#running.delete(token);
    }
  }

  /** Whether the caller runs inside a hook call of this scope that has not returned yet. */
  get active(): boolean {
    if (this.#storage === undefined) return this.#running.size > 0;
    const token = this.#storage.getStore();
    return typeof token === "object" && token !== null && this.#running.has(token);
  }
}
