/** What replaces a secret found in an error. */
export const REDACTED = "[redacted]";

// Shorter "secrets" would shred ordinary words out of messages; real keys are far longer.
const MIN_SECRET_LENGTH = 8;

/** The credentials of an SDK client worth scrubbing from errors. */
export function clientSecrets(client: unknown): string[] {
  if (typeof client !== "object" || client === null) return [];
  const { apiKey, authToken } = client as { apiKey?: unknown; authToken?: unknown };
  return [apiKey, authToken].filter(
    (secret): secret is string => typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH,
  );
}

/**
 * Removes every occurrence of `secrets` from an error in place: its message, stack, the
 * response body an SDK error carries, and its causes. The object stays the same one, so
 * callers still see the original error (class, status, headers), minus the secret.
 */
export function redactSecrets<T>(error: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return error;
  scrub(error, secrets, new Set(), 0);
  return error;
}

function replaceAll(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return out;
}

function scrub(value: unknown, secrets: readonly string[], seen: Set<object>, depth: number): void {
  if (typeof value !== "object" || value === null || seen.has(value) || depth > 8) return;
  seen.add(value);
  const target = value as Record<string, unknown>;
  const keys = new Set<string>(Object.keys(target));
  // Error's own message and stack are not enumerable.
  for (const key of ["message", "stack", "cause"]) {
    if (Object.hasOwn(target, key)) keys.add(key);
  }
  for (const key of keys) {
    let item: unknown;
    try {
      item = target[key];
    } catch {
      continue;
    }
    if (typeof item === "string") {
      const clean = replaceAll(item, secrets);
      if (clean !== item) trySet(target, key, clean);
    } else if (typeof item === "object" && item !== null && !isHeaders(item)) {
      scrub(item, secrets, seen, depth + 1);
    }
  }
}

function isHeaders(value: object): boolean {
  return typeof Headers !== "undefined" && value instanceof Headers;
}

function trySet(target: Record<string, unknown>, key: string, value: string): void {
  try {
    const descriptor = Object.getOwnPropertyDescriptor(target, key);
    if (descriptor && !descriptor.writable && descriptor.configurable) {
      Object.defineProperty(target, key, { ...descriptor, value });
    } else {
      target[key] = value;
    }
  } catch {
    // A frozen object keeps its value; nothing better can be done in place.
  }
}
