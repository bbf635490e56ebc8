import { describe, expect, it } from "vitest";
import type { ArchiveRecord } from "../session/archive.js";
import { MemoryStore } from "./memory-store.js";
import { StoreArchive } from "./store-archive.js";

const record = (text: string): ArchiveRecord => ({
  handle: "r1-abcd",
  kind: "tool_input",
  toolUseId: "toolu_1",
  original: { text },
});

describe("StoreArchive", () => {
  it("keeps each record under its handle, apart from the head, and never overwrites another", async () => {
    const store = new MemoryStore();
    const archive = new StoreArchive(store);
    await archive.put("s", [record("first")]);
    await archive.put("s", [record("first")]); // the same record again: a retry, fine
    expect(await archive.get("s", "r1-abcd")).toEqual(record("first"));
    await expect(archive.put("s", [record("second")])).rejects.toMatchObject({ code: "aborted" });
    expect(await archive.get("s", "r1-abcd")).toEqual(record("first"));
    expect(await archive.get("s", "r2-abcd")).toBeUndefined();
  });
});
