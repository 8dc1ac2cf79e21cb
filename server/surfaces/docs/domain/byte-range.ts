/**
 * The one byte range of a `Range` header (RFC 9110 §14) that a served video honours: `bytes=a-b`,
 * `bytes=a-` or `bytes=-n`, clamped to the file. Anything else (another unit, several ranges,
 * a range that starts past the end, bad syntax) is ignored, which the RFC allows: the whole file
 * is sent.
 */
export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

const SINGLE = /^bytes=(\d{0,16})-(\d{0,16})$/;

export function byteRange(header: string | undefined, size: number): ByteRange | null {
  const match = header === undefined ? null : SINGLE.exec(header.trim());
  if (!match || size === 0) return null;
  const [, first = '', last = ''] = match;
  if (first === '') {
    // A suffix: the last n bytes.
    const n = Number(last);
    if (last === '' || n === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}
