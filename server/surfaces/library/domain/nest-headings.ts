/**
 * A profile's instructions.md, placed under AGENTS.md's "## Instructions". Instructions usually
 * open with their own title (`# Code reviewer`; the shelf writes one into every new profile), and
 * AGENTS.md already opens with the profile's name: kept as is, the title showed twice and the
 * instructions' `#`/`##` sections outranked the section that holds them. So the opening `#` title
 * goes, and the remaining headings move down until the shallowest is a `###`. Fenced code is left
 * alone (a `# comment` in a shell block is no heading).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
/** The shallowest heading level inside the section. */
const NESTED_LEVEL = 3;

/** Each line with whether it lies inside a fenced code block (fences included). */
function withFences(lines: readonly string[]): { line: string; code: boolean }[] {
  let fence: string | null = null;
  return lines.map((line) => {
    const opening = FENCE.exec(line)?.[1];
    if (fence === null && opening !== undefined) {
      fence = opening;
      return { line, code: true };
    }
    if (fence !== null) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length && line.trim() === opening) fence = null;
      return { line, code: true };
    }
    return { line, code: false };
  });
}

export function nestInstructions(markdown: string): string {
  const lines = withFences(markdown.split('\n'));
  const first = lines.findIndex(({ line }) => line.trim() !== '');
  if (first !== -1 && !lines[first]!.code && /^ {0,3}#(?=[ \t]|$)/.test(lines[first]!.line)) {
    lines.splice(0, first + 1);
    while (lines.length > 0 && lines[0]!.line.trim() === '') lines.shift();
  }
  const levels = lines.filter(({ code }) => !code).map(({ line }) => HEADING.exec(line)?.[2]?.length ?? 7);
  const shallowest = Math.min(7, ...levels);
  const shift = shallowest <= 6 ? Math.max(0, NESTED_LEVEL - shallowest) : 0;
  return lines
    .map(({ line, code }) => {
      if (code || shift === 0) return line;
      return line.replace(HEADING, (_all, indent: string, hashes: string) => `${indent}${'#'.repeat(Math.min(6, hashes.length + shift))}`);
    })
    .join('\n');
}
