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
