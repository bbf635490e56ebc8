/**
 * What `jsonLength` and `checkedJsonObjectLength` count for a JSON value, written the slow way
 * as a model for their tests: `JSON.stringify`'s length, less the escapes of every string (key
 * or value) of up to 64 characters, which count as their characters and quotes.
 */
export function modelJsonLength(value: unknown): number {
  let uncounted = 0;
  const text = JSON.stringify(value, function (this: unknown, key, item: unknown) {
    // Keys of an array's items are their indexes, which JSON does not write.
    if (key !== "" && !Array.isArray(this)) uncounted += shortEscapes(key);
    if (typeof item === "string") uncounted += shortEscapes(item);
    return item;
  });
  return text === undefined ? 0 : text.length - uncounted;
}

function shortEscapes(text: string): number {
  return text.length > 64 ? 0 : JSON.stringify(text).length - text.length - 2;
}
