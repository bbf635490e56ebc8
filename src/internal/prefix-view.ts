/** Each view's backing array and length (see {@link prefixView}). */
const views = new WeakMap<object, { backing: readonly unknown[]; length: number }>();

/** `key` as an index below `length`, or `undefined` (the canonical numeric strings only). */
function indexBelow(key: string | symbol, length: number): number | undefined {
  if (typeof key !== "string") return undefined;
  const index = Number(key);
  return Number.isSafeInteger(index) && index >= 0 && index < length && String(index) === key
    ? index
    : undefined;
}

/**
 * A read-only array of the first `length` elements of `backing`, made in O(1) without copying:
 * an `Array` to every reader (`Array.isArray`, indexing, `length`, iteration, spread, JSON and
 * every array method, whose results are plain arrays), which no write reaches (assignment,
 * `push`, `delete` throw a `TypeError`). It stays as it was made while `backing` only grows:
 * the owner must copy `backing` before changing an element below `length`. A proxy, so
 * `structuredClone` refuses it: clone `[...view]`. {@link plainPrefix} copies it fast.
 */
export function prefixView<T>(backing: readonly T[], length: number): readonly T[] {
  const refuse = () => false;
  const view = new Proxy<T[]>([], {
    get(target, key, receiver) {
      if (key === "length") return length;
      const index = indexBelow(key, length);
      return index === undefined ? Reflect.get(target, key, receiver) : backing[index];
    },
    has(target, key) {
      return key === "length" || indexBelow(key, length) !== undefined || Reflect.has(target, key);
    },
    ownKeys() {
      const keys: string[] = [];
      for (let index = 0; index < length; index += 1) keys.push(String(index));
      keys.push("length");
      return keys;
    },
    getOwnPropertyDescriptor(target, key) {
      // The target's own `length` is not configurable: reported so, with the view's value.
      if (key === "length")
        return { value: length, writable: true, enumerable: false, configurable: false };
      const index = indexBelow(key, length);
      if (index === undefined) return Reflect.getOwnPropertyDescriptor(target, key);
      return { value: backing[index], writable: false, enumerable: true, configurable: true };
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  });
  views.set(view, { backing, length });
  return view;
}

/** Whether `value` is a view {@link prefixView} made (it cannot change). */
export function isPrefixView(value: unknown): boolean {
  return typeof value === "object" && value !== null && views.has(value);
}

/** A plain copy of a {@link prefixView} (a native slice), or `undefined` for anything else. */
export function plainPrefix<T>(value: readonly T[]): T[] | undefined {
  const view = views.get(value);
  return view === undefined ? undefined : (view.backing.slice(0, view.length) as T[]);
}
