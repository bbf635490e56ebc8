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
