import type { SessionStore } from "../../../src/store/session-store.js";

/** A store that forwards every call to `store`, but those `overrides` answer. */
export function delegate(store: SessionStore, overrides: Partial<SessionStore>): SessionStore {
  return {
    read: (...args) => store.read(...args),
    append: (...args) => store.append(...args),
    swapHead: (...args) => store.swapHead(...args),
    acquireLease: (...args) => store.acquireLease(...args),
    releaseLease: (...args) => store.releaseLease(...args),
    getValue: (...args) => store.getValue(...args),
    setValue: (...args) => store.setValue(...args),
    deleteSession: (...args) => store.deleteSession(...args),
    ...overrides,
  };
}

/** A promise and the function that resolves it. */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
