// An `input_image` part comes back as it went in: both of `image_url` and `file_id` when it has
// both, and no `detail` it did not have (review F09, item 1).
import { describe, expect, it } from "vitest";
import type { ImageBlock } from "../core/message.js";
import { fromResponsesInput } from "./responses-input.js";
import { toResponsesInput } from "./responses-output.js";

const roundTrip = (items: unknown[]) => toResponsesInput(fromResponsesInput(items));
const userImage = (part: Record<string, unknown>) => [
  { role: "user", content: [{ type: "input_image", ...part }] },
];

describe("an input_image part", () => {
  it("keeps the file_id of a part that has an image_url too", () => {
    const items = userImage({ image_url: "https://x/y.png", file_id: "file_1", detail: "low" });
    expect(roundTrip(items)).toEqual(items);
  });

  it("keeps an image_url beside the file_id it is read by (an empty one)", () => {
    const items = userImage({ image_url: "", file_id: "file_1", detail: "high" });
    expect(roundTrip(items)).toEqual(items);
  });

  it("reads the image_url as the source and keeps the rest of the part beside it", () => {
    const [message] = fromResponsesInput(
      userImage({ image_url: "https://x/y.png", file_id: "file_1" }),
    );
    const block = message!.content[0] as ImageBlock;
    expect(block.source).toEqual({ type: "url", url: "https://x/y.png" });
    expect(block.extra?.["openai"]).toMatchObject({ part: { file_id: "file_1" } });
  });

  it("records a part without a detail as read (an empty part kept), for the writer", () => {
    const [message] = fromResponsesInput(userImage({ file_id: "file_1" }));
    expect((message!.content[0] as ImageBlock).extra?.["openai"]).toMatchObject({ part: {} });
  });

  // The writer adds `detail: "auto"` only to an image with no kept `part` (another provider's).
  it("adds no detail to a part that had none", () => {
    const items = userImage({ image_url: "https://x/y.png", file_id: "file_1" });
    expect(roundTrip(items)).toEqual(items);
  });

  it("still gives an image from elsewhere a detail", () => {
    const items = toResponsesInput(
      fromResponsesInput([{ role: "user", content: "x" }]).map((message) => ({
        ...message,
        content: [{ type: "image", source: { type: "url", url: "https://x/y.png" } }],
      })),
    );
    expect(items[0]).toMatchObject({
      content: [{ type: "input_image", detail: "auto", image_url: "https://x/y.png" }],
    });
  });
});
