import { isPlainObject, setOwnProperty } from "./plain-object.js";

/**
 * Binary data the adapters accept (the AI SDK's `Uint8Array`, `ArrayBuffer` and Node's `Buffer`,
 * LangChain's `Uint8Array` and `Buffer`) as the base64 text our messages carry, and back, of the
 * same kind; platform-neutral (no `Buffer`), so the entries bundle for browsers and edge runtimes.
 */

/** How a part held its data, so the way back gives the same kind. */
export type DataKind = "string" | "bytes" | "buffer" | "arraybuffer" | "URL";

/** What is read of Node's `Buffer` class. */
interface BufferClass {
  isBuffer(value: unknown): boolean;
  from(buffer: ArrayBuffer, byteOffset: number, length: number): Uint8Array;
}

/**
 * Node's `Buffer`, where the runtime has one, found on `globalThis` rather than imported: the
 * entry bundles for runtimes without it, where no data can be one.
 */
function bufferClass(): BufferClass | undefined {
  const found = (globalThis as { Buffer?: Partial<BufferClass> }).Buffer;
  return typeof found?.isBuffer === "function" && typeof found.from === "function"
    ? (found as BufferClass)
    : undefined;
}

// Large arrays go through String.fromCharCode in slices: one call per slice, not per byte.
const SLICE = 0x8000;

/** Base64 of `bytes`. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += SLICE) {
    binary += String.fromCharCode(...bytes.subarray(start, start + SLICE));
  }
  return btoa(binary);
}

/** The bytes of base64 text. */
export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** What kind of data a part holds, or `undefined` for anything the AI SDK does not take. */
export function dataKind(data: unknown): DataKind | undefined {
  if (typeof data === "string") return "string";
  if (data instanceof Uint8Array)
    return bufferClass()?.isBuffer(data) === true ? "buffer" : "bytes";
  if (data instanceof ArrayBuffer) return "arraybuffer";
  if (data instanceof URL) return "URL";
  return undefined;
}

/** Data of a known kind as text: base64 for bytes, the address for a URL. */
export function dataToText(data: string | Uint8Array | ArrayBuffer | URL): string {
  if (typeof data === "string") return data;
  if (data instanceof URL) return data.href;
  return bytesToBase64(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
}

/** Text back as data of `kind`. */
export function textToData(text: string, kind: unknown): string | Uint8Array | ArrayBuffer | URL {
  switch (kind) {
    case "bytes":
      return base64ToBytes(text);
    case "buffer": {
      // A Buffer where the runtime has one (a snapshot restored elsewhere gets the bytes).
      const bytes = base64ToBytes(text);
      return bufferClass()?.from(bytes.buffer as ArrayBuffer, 0, bytes.length) ?? bytes;
    }
    case "arraybuffer": {
      // A fresh array's buffer holds exactly its bytes.
      return base64ToBytes(text).buffer as ArrayBuffer;
    }
    case "URL":
      return new URL(text);
    default:
      return text;
  }
}

/** Where a value stands below another: the keys and indices that lead to it. */
export type ValuePath = (string | number)[];

/** How deep {@link replaceBinary} looks, and how many values it reads at most. */
const MAX_BINARY_DEPTH = 64;
const MAX_BINARY_VALUES = 100_000;

/** Whether `value` is binary data: a `Uint8Array` (Node's `Buffer` is one) or an `ArrayBuffer`. */
const isBinary = (value: unknown): value is Uint8Array | ArrayBuffer =>
  value instanceof Uint8Array || value instanceof ArrayBuffer;

/**
 * A copy of `value` with each binary value below it (a `Uint8Array`, a `Buffer`, an
 * `ArrayBuffer`, in plain objects and arrays) replaced by what `replace` gives for it at its
 * path: the containers above it copied, the rest shared; `value` itself when it holds none.
 * It looks 64 levels deep and reads at most 100,000 values (shared objects count each time
 * they are reached): what lies past is left as it is, for a JSON check to refuse.
 */
export function replaceBinary(
  value: unknown,
  replace: (data: Uint8Array | ArrayBuffer, at: ValuePath) => unknown,
): unknown {
  const budget = { left: MAX_BINARY_VALUES };
  const path: ValuePath = [];
  const walk = (current: unknown): unknown => {
    if (isBinary(current)) return replace(current, [...path]);
    if (typeof current !== "object" || current === null) return current;
    if (path.length >= MAX_BINARY_DEPTH || budget.left <= 0) return current;
    const array = Array.isArray(current);
    if (!array && !isPlainObject(current)) return current;
    let copy: Record<string, unknown> | unknown[] | undefined;
    const keys = array ? current.keys() : Object.keys(current);
    for (const key of keys) {
      budget.left -= 1;
      const item = (current as Record<string | number, unknown>)[key];
      path.push(key);
      const out = walk(item);
      path.pop();
      if (out === item) continue;
      copy ??= array ? current.slice() : { ...(current as Record<string, unknown>) };
      if (Array.isArray(copy)) copy[key as number] = out;
      else setOwnProperty(copy, key as string, out);
    }
    return copy ?? current;
  };
  return walk(value);
}

/**
 * A copy of `value` with the base64 text at `at` given back as data of `kind` (the containers
 * on the way copied); `value` itself when no text stands there.
 */
export function dataBackAt(value: unknown, at: readonly unknown[], kind: unknown): unknown {
  if (at.length === 0) return typeof value === "string" ? textToData(value, kind) : value;
  // A path read from a snapshot: no deeper than replaceBinary goes.
  if (at.length > MAX_BINARY_DEPTH || typeof value !== "object" || value === null) return value;
  const [key, ...rest] = at;
  if (typeof key !== "string" && typeof key !== "number") return value;
  const container = value as Record<string, unknown>;
  if (!Object.hasOwn(container, key)) return value;
  const inner = dataBackAt(container[key], rest, kind);
  if (inner === container[key]) return value;
  if (Array.isArray(value)) {
    const copy = value.slice();
    copy[Number(key)] = inner;
    return copy;
  }
  const copy = { ...container };
  setOwnProperty(copy, String(key), inner);
  return copy;
}
