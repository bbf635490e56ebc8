/**
 * An RFC 3339 date and time with seconds and an offset, as zod's `z.iso.datetime({ offset: true })`
 * takes it (`2026-01-01T12:00:00Z`, `2026-01-01T12:00:00.5+02:00`), without zod's date-time
 * machinery (2.4 kB of a session's bundle). Linear in the text: no quantifier meets another.
 */
const DATE_TIME =
  /^(\d{4})-(\d\d)-(\d\d)T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** Whether `text` is such a date and time, its day one its month has (29 February in leap years). */
export function isIsoDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days =
    month === 2
      ? leap
        ? 29
        : 28
      : month === 4 || month === 6 || month === 9 || month === 11
        ? 30
        : 31;
  return day <= days;
}
