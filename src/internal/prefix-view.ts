/** The key a view answers with its backing array and length (see {@link prefixView}); no other array has it. */
const VIEW = Symbol("prefixView");

interface ViewSource {
  backing: readonly unknown[];
  length: number;
}

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
  const source: ViewSource = { backing, length };
  return new Proxy<T[]>([], {
    get(target, key, receiver) {
      if (key === "length") return length;
      if (key === VIEW) return source;
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
}

/** What a view answers for {@link VIEW}; `undefined` for anything else. */
function sourceOf(value: unknown): ViewSource | undefined {
  if (!Array.isArray(value)) return undefined;
  return (value as unknown as { [VIEW]?: ViewSource })[VIEW];
}

/** Whether `value` is a view {@link prefixView} made (it cannot change). */
export function isPrefixView(value: unknown): boolean {
  return sourceOf(value) !== undefined;
}

/** A plain copy of a {@link prefixView} (a native slice), or `undefined` for anything else. */
export function plainPrefix<T>(value: readonly T[]): T[] | undefined {
  const view = sourceOf(value);
  return view === undefined ? undefined : (view.backing.slice(0, view.length) as T[]);
}
