/**
 * Just enough Markdown reading for the documentation checks: the text outside fenced code blocks,
 * the inline code spans, the links, and the anchors GitHub gives headings. Not a Markdown parser:
 * the repository's documents are plain (no HTML blocks, no reference-style links).
 */

/** The lines outside fenced code blocks, each with its 1-based line number. */
export function proseLines(markdown: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | null = null;
  markdown.split('\n').forEach((text, index) => {
    const opener = /^\s*(```+|~~~+)/.exec(text)?.[1];
    if (fence === null && opener !== undefined) fence = opener[0] as string;
    else if (fence !== null && opener?.[0] === fence) fence = null;
    else if (fence === null) lines.push({ line: index + 1, text });
  });
  return lines;
}

/** The contents of the inline code spans of a line (single or double backticks). */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/(`+)(.+?)\1/g)].map((match) => (match[2] as string).trim());
}

/** The inline links `[text](target)` outside code, with their line numbers. */
export function links(markdown: string): { line: number; target: string }[] {
  return proseLines(markdown).flatMap(({ line, text }) =>
    [...text.replace(/(`+).+?\1/g, '').matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((match) => ({ line, target: match[1] as string })),
  );
}

/**
 * The anchors of the document's headings as GitHub makes them: lower case, punctuation dropped
 * (letters, digits, spaces, `-` and `_` kept), each space a `-`; a repeated one gets `-1`, `-2`, ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}
