import { v7 as uuidv7 } from "uuid";
import type {
  AssistantMessage,
  ContentBlock,
  GeneratedKind,
  Message,
  TurnId,
  UserMessage,
} from "./message.js";

/** Returns the current time; injectable so tests never depend on the wall clock. */
export type Clock = () => Date;

/** The wall clock. */
export const systemClock: Clock = () => new Date();

/** A new time-ordered message id (uuid v7). */
export function newId(): string {
  return uuidv7();
}

/**
 * Successive uuid v7 ids for the messages of one conversion: the first a new uuid v7, each next
 * one the one before plus one in its last 48 bits (RFC 9562's counter method): valid, unique and
 * time-ordered, at a fraction of the cost of a new uuid each (its random bytes and formatting).
 * `first` is for tests.
 */
export function newIdSequence(first: string = uuidv7()): () => string {
  // The last 48 bits as two halves of 24: the low half counts, the high one takes its carry.
  let head = first.slice(0, 30);
  let high = Number.parseInt(first.slice(24, 30), 16);
  let low = Number.parseInt(first.slice(30), 16);
  return () => {
    // The six digits joined first (a short string is made flat): one join with `head`, not three.
    const id = head + (HEX[low >>> 16]! + HEX[(low >>> 8) & 0xff]! + HEX[low & 0xff]!);
    low += 1;
    if (low === 0x1000000) {
      low = 0;
      high = (high + 1) % 0x1000000;
      head = first.slice(0, 24) + high.toString(16).padStart(6, "0");
    }
    return id;
  };
}

/** Two hex digits for each byte. */
const HEX = /* @__PURE__ */ Array.from({ length: 256 }, (_, byte) =>
  byte.toString(16).padStart(2, "0"),
);

/** What {@link createMessage} needs. */
export interface CreateMessageOptions<R extends Message["role"]> {
  role: R;
  sessionId: string;
  turnId: TurnId;
  content: ContentBlock[];
  /** @default a new uuid v7 */
  id?: string;
  /** @default the wall clock */
  clock?: Clock;
  /** Marks a message the library writes. @default none (the user's or the model's) */
  generated?: GeneratedKind;
}

/** Builds a message with a fresh id and timestamp. */
export function createMessage(options: CreateMessageOptions<"user">): UserMessage;
export function createMessage(options: CreateMessageOptions<"assistant">): AssistantMessage;
export function createMessage(options: CreateMessageOptions<Message["role"]>): Message {
  return {
    role: options.role,
    id: options.id ?? newId(),
    sessionId: options.sessionId,
    turnId: { owner: options.turnId.owner, number: options.turnId.number },
    createdAt: (options.clock ?? systemClock)(),
    content: options.content,
    ...(options.generated === undefined ? {} : { generated: options.generated }),
  } as Message;
}
