// The text format of what a summary message holds: read and written by compactors and by
// every adapter that converts messages (so none of them imports a compactor).

/** The prefix of the summary message's text. */
export const SUMMARY_PREFIX = "[Previous conversation summary]: ";

/** The prefix of a user message kept verbatim in the summary message. */
export const EARLIER_USER_MESSAGE_PREFIX = "[Earlier user message]: ";
