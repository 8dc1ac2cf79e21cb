/**
 * Which pages go in which chunk. Cutting the image at fixed offsets would make every backup after
 * a few new mails almost wholly new: SQLite allocates pages as the file grows, so each table's and
 * index's pages are scattered over the whole file, and an index on random keys (a message id)
 * takes its new keys on leaves all over it. So pages are grouped by the table or index that owns
 * them (SQLite's dbstat table says which), each group in page-number order, and cut into chunks of
 * at most PAGES_PER_CHUNK pages within its group: what one table's new rows touch changes that
 * table's chunks only, and the bulk of the file (old rows, untouched indexes) keeps its chunks.
 * Groups smaller than a chunk share chunks, one after another by name, so a node's hundreds of
 * small tables do not each make a file. Pure: page owners in, chunk page lists out.
 */

/** A run of consecutive page numbers: [first, count]. */
export type PageRun = [number, number];

/** The page lists of each chunk, in order, every page of the image in exactly one. */
export function chunkLayout(pageCount: number, owners: ReadonlyMap<number, string>, pagesPerChunk: number): number[][] {
  const groups = new Map<string, number[]>();
  for (let page = 1; page <= pageCount; page++) {
    // Pages no table owns (free pages, the database header's own page is sqlite_schema's) form a group of their own.
    const owner = owners.get(page) ?? '';
    const group = groups.get(owner);
    if (group) group.push(page);
    else groups.set(owner, [page]);
  }
  const names = [...groups.keys()].sort();
  const chunks: number[][] = [];
  const small: number[] = [];
  for (const name of names) {
    const pages = groups.get(name)!;
    if (pages.length < pagesPerChunk) small.push(...pages);
    else for (let start = 0; start < pages.length; start += pagesPerChunk) chunks.push(pages.slice(start, start + pagesPerChunk));
  }
  for (let start = 0; start < small.length; start += pagesPerChunk) chunks.push(small.slice(start, start + pagesPerChunk));
  return chunks;
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
