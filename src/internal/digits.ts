/** Whether a character code is a decimal digit. */
export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Where the run of at most `most` decimal digits from `at` in `text` ends. */
export function digitsEnd(text: string, at: number, most: number): number {
  let end = at;
  while (end - at < most && isDigit(text.charCodeAt(end))) end += 1;
  return end;
}
