/** Characters of `text` as a JSON string literal, quotes included, as `JSON.stringify` writes it. */
function stringLength(text: string): number {
  let length = text.length + 2;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === 0x22 || code === 0x5c) length += 1;
    else if (code < 0x20) {
      // \b \t \n \f \r take two characters; every other control character \u00XX six.
      length += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 1 : 5;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const pair =
        code <= 0xdbff &&
        index + 1 < text.length &&
        text.charCodeAt(index + 1) >= 0xdc00 &&
        text.charCodeAt(index + 1) <= 0xdfff;
      if (pair) index += 1;
      else length += 5; // a lone surrogate is written \uDXXX
    }
  }
  return length;
}

/** How deep {@link jsonLength} walks before it lets `JSON.stringify` measure the rest. */
const MAX_DEPTH = 64;

/**
 * The length of `JSON.stringify(value)` without building the string: the token estimate
 * measures every tool input, and on a conversation seen once (a stateless server) the
 * strings were most of its garbage. Exact for JSON values (what the session validated);
 * anything else (a `toJSON`, a function) is measured by `JSON.stringify` itself.
 */
export function jsonLength(value: unknown, depth = 0): number {
  switch (typeof value) {
    case "string":
      return stringLength(value);
    case "number":
      return Number.isFinite(value) ? String(value).length : 4;
    case "boolean":
      return value ? 4 : 5;
    case "object":
      break;
    default:
      return JSON.stringify(value)?.length ?? 0;
  }
  if (value === null) return 4;
  if (depth >= MAX_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === "function")
    return JSON.stringify(value)?.length ?? 0;
  if (Array.isArray(value)) {
    let length = 2 + Math.max(0, value.length - 1);
    for (const item of value) {
      const type = typeof item;
      length +=
        item === undefined || type === "function" || type === "symbol"
          ? 4
          : jsonLength(item, depth + 1);
    }
    return length;
  }
  let length = 2;
  let members = 0;
  // `for in` walks the object's keys without an array of them (its own: a JSON object).
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    const type = typeof item;
    if (item === undefined || type === "function" || type === "symbol") continue;
    length += stringLength(key) + 1 + jsonLength(item, depth + 1);
    members += 1;
  }
  return length + Math.max(0, members - 1);
}
