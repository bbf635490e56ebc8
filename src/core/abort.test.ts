import { describe, expect, it } from "vitest";
import { isAbortSignal, linkAbort, requestWithin } from "./abort.js";
import { CompactionError } from "./errors.js";

const failure = (error: unknown) =>
  new CompactionError("llm_error", `failed: ${String(error)}`, { cause: error });
const options = (signal?: AbortSignal) => ({ signal, milliseconds: 50, what: "request", failure });
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: unknown) => (CompactionError.isInstance(error) ? error.code : "other"),
  );

describe("requestWithin", () => {
  it("resolves with the request's value, and gives it a signal of its own", async () => {
    let seen: AbortSignal | undefined;
    const caller = new AbortController();
    const value = await requestWithin((signal) => {
      seen = signal;
      return "done";
    }, options(caller.signal));
    expect(value).toBe("done");
    expect(seen).toBeDefined();
    expect(seen).not.toBe(caller.signal);
  });

  it("sends nothing when the caller's signal has already fired", async () => {
    const caller = new AbortController();
    caller.abort();
    let started = false;
    const run = requestWithin(() => {
      started = true;
      return "done";
    }, options(caller.signal));
    expect(await codeOf(run)).toBe("aborted");
    expect(started).toBe(false);
  });

  it("rejects with aborted when the caller aborts mid-request, even if the request ignores it", async () => {
    const caller = new AbortController();
    let inner: AbortSignal | undefined;
    const run = requestWithin((signal) => {
      inner = signal;
      return new Promise<string>(() => {});
    }, options(caller.signal));
    caller.abort();
    expect(await codeOf(run)).toBe("aborted");
    expect(inner?.aborted).toBe(true);
  });

  it("times out, aborting the request; an SDK's own timeout counts too", async () => {
    let inner: AbortSignal | undefined;
    const run = requestWithin((signal) => {
      inner = signal;
      return new Promise<string>(() => {});
    }, options());
    await expect(run).rejects.toThrow("request timed out after 50 ms");
    expect(inner?.aborted).toBe(true);
    const sdkTimeout = Object.assign(new Error("slow"), { name: "APIConnectionTimeoutError" });
    const own = requestWithin(() => Promise.reject(sdkTimeout), {
      ...options(),
      isTimeout: (error) => (error as Error).name === "APIConnectionTimeoutError",
    });
    expect(await codeOf(own)).toBe("timeout");
  });

  it("maps other failures with `failure`, sync or async, and passes a CompactionError through", async () => {
    const sync = requestWithin(() => {
      throw new Error("boom");
    }, options());
    await expect(sync).rejects.toMatchObject({ code: "llm_error", message: "failed: Error: boom" });
    await expect(
      requestWithin(() => Promise.reject(new Error("500")), options()),
    ).rejects.toMatchObject({
      code: "llm_error",
    });
    const own = new CompactionError("empty_summary", "blank");
    await expect(requestWithin(() => Promise.reject(own), options())).rejects.toBe(own);
  });
});

describe("linkAbort and isAbortSignal", () => {
  it("stops following the caller's signal once released", () => {
    const caller = new AbortController();
    const link = linkAbort(caller.signal);
    link.release();
    caller.abort();
    expect(link.signal.aborted).toBe(false);
  });

  it("accepts anything shaped like a signal, and nothing else", () => {
    expect(isAbortSignal(new AbortController().signal)).toBe(true);
    expect(isAbortSignal({ aborted: false, addEventListener() {}, removeEventListener() {} })).toBe(
      true,
    );
    expect(isAbortSignal({ aborted: false })).toBe(false);
    expect(isAbortSignal(null)).toBe(false);
  });
});
