/**
 * Which pages go in which chunk. Cutting the image at fixed offsets would make every backup after
 * a few new mails almost wholly new: SQLite allocates pages as the file grows and reuses freed ones
 * anywhere, so each table's and index's pages are scattered over the whole file, and new rows land
 * on pages all over it. So the pages are put in an order that stays put as a database grows, and
 * cut into chunks in that order:
 *
 * - grouped by the table or index that owns them (SQLite's dbstat table says which, and where in
 *   its b-tree each page is), so what one table's new rows touch changes that table's chunks only;
 * - within a group, its leaf pages (with their overflow pages) in key order, not page-number order,
 *   so rows appended to a table (mail by rowid, its plaintext by message) extend the group at its
 *   end, whichever free page SQLite gave them; the interior pages, which every insert touches,
 *   follow in chunks of their own;
 * - groups smaller than a chunk share chunks, one after another by name, as the free pages do.
 *
 * An index on random keys (a message id) still takes its new keys all over itself, so its chunks
 * are written again each time: it is a few percent of a mail node. Pure: page facts in, page lists out.
 */

/** A run of consecutive page numbers: [first, count]. */
export type PageRun = [number, number];

export interface PageFact {
  page: number;
  /** The table or index the page belongs to. */
  owner: string;
  /** Where in its b-tree (dbstat's path: `/` the root, `/00a/` a child, `/00a/003+000001` an overflow page of a cell). */
  path: string;
  /** An interior page of its b-tree (rather than a leaf or an overflow page). */
  interior: boolean;
}

/** The page lists of each chunk, in order, every page of `pageCount` in exactly one. */
export function chunkLayout(pageCount: number, facts: readonly PageFact[], pagesPerChunk: number): number[][] {
  const groups = new Map<string, PageFact[]>();
  const known = new Set<number>();
  for (const fact of facts) {
    if (fact.page < 1 || fact.page > pageCount || known.has(fact.page)) continue;
    known.add(fact.page);
    const group = groups.get(fact.owner);
    if (group) group.push(fact);
    else groups.set(fact.owner, [fact]);
  }
  const chunks: number[][] = [];
  const cut = (pages: number[]) => {
    for (let start = 0; start < pages.length; start += pagesPerChunk) chunks.push(pages.slice(start, start + pagesPerChunk));
  };
  const shared: number[] = [];
  for (const owner of [...groups.keys()].sort()) {
    const group = groups.get(owner)!.sort(byTreePosition);
    if (group.length < pagesPerChunk) {
      shared.push(...group.map((fact) => fact.page));
      continue;
    }
    cut(group.filter((fact) => !fact.interior).map((fact) => fact.page));
    cut(group.filter((fact) => fact.interior).map((fact) => fact.page));
  }
  cut(shared);
  // Pages no b-tree holds (free pages): last, by number.
  const free: number[] = [];
  for (let page = 1; page <= pageCount; page++) if (!known.has(page)) free.push(page);
  cut(free);
  return chunks;
}

/** Key order in the b-tree: a page before the overflow pages of its cells, and both before the next page. */
function byTreePosition(a: PageFact, b: PageFact): number {
  const x = positionOf(a.path);
  const y = positionOf(b.path);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length || a.page - b.page;
}

const positions = new Map<string, number[]>();

function positionOf(path: string): number[] {
  let position = positions.get(path);
  if (position === undefined) {
    position = path
      .split(/[/+]/)
      .filter((part) => part !== '')
      .map((part) => parseInt(part, 16));
    if (positions.size > 100_000) positions.clear();
    positions.set(path, position);
  }
  return position;
}

/** A page list written as runs, for the manifest. */
export function toRuns(pages: readonly number[]): PageRun[] {
  const runs: PageRun[] = [];
  for (const page of pages) {
    const last = runs.at(-1);
    if (last && last[0] + last[1] === page) last[1] += 1;
    else runs.push([page, 1]);
  }
  return runs;
}

/** The page list runs stand for. */
export function fromRuns(runs: readonly PageRun[]): number[] {
  return runs.flatMap(([first, count]) => Array.from({ length: count }, (_, i) => first + i));
}
