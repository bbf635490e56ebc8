import { describe, expect, it } from "vitest";
import { gate } from "../../test/support/gate.js";
import { SerialQueue } from "./serial-queue.js";

describe("SerialQueue", () => {
  it("runs one task at a time, in order, and says when one runs", async () => {
    const queue = new SerialQueue();
    const order: string[] = [];
    const first = gate();
    expect(queue.running).toBe(false);
    const a = queue.enqueue(async () => {
      order.push("a starts");
      await first.opened;
      order.push("a ends");
      return "a";
    });
    const b = queue.enqueue(async () => {
      order.push("b");
      return "b";
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(queue.running).toBe(true);
    expect(order).toEqual(["a starts"]);
    first.open();
    expect(await Promise.all([a, b])).toEqual(["a", "b"]);
    expect(order).toEqual(["a starts", "a ends", "b"]);
    expect(queue.running).toBe(false);
  });

  it("goes on after a task that rejects, which rejects its own caller only", async () => {
    const queue = new SerialQueue();
    const failed = queue.enqueue(async () => {
      throw new Error("boom");
    });
    const next = queue.enqueue(async () => "next");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("next");
    expect(queue.running).toBe(false);
  });

  it("a task whose signal fires while it waits rejects at once (aborted) and never runs", async () => {
    const queue = new SerialQueue();
    const first = gate();
    const running = queue.enqueue(() => first.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = queue.enqueue(async () => {
      ran = true;
    }, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: "aborted" });
    first.open();
    await running;
    expect(await queue.enqueue(async () => "next")).toBe("next");
    expect(ran).toBe(false);
  });
});
