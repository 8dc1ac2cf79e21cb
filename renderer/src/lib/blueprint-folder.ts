/**
 * A blueprint folder, as a person picks it (`<input webkitdirectory>`) or drops it, turned into the
 * library's canonical import payload `{schema, files: [{path, content_utf8}]}`: paths relative to
 * the folder's root, the directories the library excludes (and the OS's own litter) left out,
 * every file decoded as strict UTF-8. Nothing else is computed: the node hashes each file itself.
 * blueprint.yaml is read for the summary shown before sending. No DOM beyond the File and
 * directory-entry shapes it is given; tested in blueprint-folder.test.ts.
 */
import { isMap, isSeq } from 'yaml';
import type { BlueprintImportPayload } from '../../../contract/library/catalog.ts';
import { IMPORT_PAYLOAD_SCHEMA } from '../../../contract/library-rules.ts';
import { plural } from './format.ts';
import { yamlMapping } from './yaml-mapping.ts';

// The payload's schema string and shape are the wire contract's (contract/).
export { IMPORT_PAYLOAD_SCHEMA };
export const BLUEPRINT_YAML = 'blueprint.yaml';

/** The directories the library never takes into a payload, at any depth. */
export const EXCLUDED_DIRS: readonly string[] = ['.git', '.hg', '.svn', 'node_modules', '.cache', 'dist', 'build', 'target', 'tmp', 'vendor', '__pycache__'];

/** Files an operating system leaves in folders (binary, never part of a blueprint). */
const OS_FILES: readonly string[] = ['.DS_Store', 'Thumbs.db', 'desktop.ini'];

export type ImportPayload = BlueprintImportPayload;

/** One file of the folder: its path including the folder's own name (`team/blueprint.yaml`). */
export interface FolderFile {
  path: string;
  read(): Promise<ArrayBuffer>;
}

export interface FolderListing {
  files: FolderFile[];
  /** Excluded directories that were not even opened (a drop skips them), paths as in `files`. */
  pruned?: string[];
}

/** What a File from `<input webkitdirectory>` offers (a real File, or a fake in tests). */
export interface FileLike {
  readonly name: string;
  readonly webkitRelativePath?: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** The files a directory input chose, each at its `webkitRelativePath` (which starts with the folder's name). */
export function listingFromFiles(files: Iterable<FileLike> | ArrayLike<FileLike>): FolderListing {
  return {
    files: Array.from(files as ArrayLike<FileLike>, (file) => ({ path: file.webkitRelativePath || file.name, read: () => file.arrayBuffer() })),
  };
}

/** The slice of the File and Directory Entries API a drop hands over (`DataTransferItem.webkitGetAsEntry()`). */
export interface EntryLike {
  readonly isFile: boolean;
  readonly isDirectory: boolean;
  readonly name: string;
  readonly fullPath: string;
  file?(success: (file: FileLike) => void, failure?: (error: unknown) => void): void;
  createReader?(): { readEntries(success: (entries: EntryLike[]) => void, failure?: (error: unknown) => void): void };
}

function readAll(directory: EntryLike): Promise<EntryLike[]> {
  const reader = directory.createReader?.();
  if (reader === undefined) return Promise.resolve([]);
  const all: EntryLike[] = [];
  // readEntries hands out a batch at a time (100 in Chromium) until it answers with none.
  return new Promise((resolve, reject) => {
    const next = (): void =>
      reader.readEntries((batch) => {
        if (batch.length === 0) resolve(all);
        else {
          all.push(...batch);
          next();
        }
      }, reject);
    next();
  });
}

/** The files under dropped entries (a dropped folder, or loose files), excluded directories left unopened. */
export async function listingFromEntries(entries: readonly EntryLike[]): Promise<FolderListing> {
  const files: FolderFile[] = [];
  const pruned: string[] = [];
  const walk = async (entry: EntryLike): Promise<void> => {
    const path = entry.fullPath.replace(/^\/+/, '');
    if (entry.isDirectory) {
      if (EXCLUDED_DIRS.includes(entry.name)) {
        pruned.push(path);
        return;
      }
      for (const child of await readAll(entry)) await walk(child);
    } else if (entry.isFile && entry.file !== undefined) {
      const file = entry.file.bind(entry);
      files.push({ path, read: () => new Promise<FileLike>((resolve, reject) => file(resolve, reject)).then((f) => f.arrayBuffer()) });
    }
  };
  for (const entry of entries) await walk(entry);
  return { files, pruned };
}

// ---------------------------------------------------------------------------------------------

/** A folder that cannot be imported as it is, in plain words. */
export class BlueprintFolderError extends Error {}

export interface BlueprintFolder {
  /** The chosen folder's name, when every path sat inside one. */
  folder: string | null;
  payload: ImportPayload;
  /** UTF-8 bytes of every file sent. */
  totalBytes: number;
  /** What was left out: excluded directories (`node_modules/`) and OS files, relative to the root. */
  skipped: string[];
  /** Read from blueprint.yaml for the summary; null where it does not say (the node will). */
  blueprint: { id: string | null; version: string | null; name: string | null; profiles: string[] };
}

function scalar(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

function readManifest(text: string): BlueprintFolder['blueprint'] {
  const document = yamlMapping(text, 'blueprint.yaml', 'id: …, version: …, profiles: …', (message) => new BlueprintFolderError(message));
  const profiles = document.get('profiles');
  const ids = isSeq(profiles) ? profiles.items.map((item) => (isMap(item) ? scalar(item.get('id')) : null)).filter((id): id is string => id !== null) : [];
  return { id: scalar(document.get('id')), version: scalar(document.get('version')), name: scalar(document.get('name')), profiles: ids };
}

/** "a, b, c and 4 more". */
function someOf(items: readonly string[], shown = 4): string {
  if (items.length <= shown) return items.join(', ');
  return `${items.slice(0, shown).join(', ')} and ${items.length - shown} more`;
}

/** The top folder every path shares (`webkitRelativePath` always starts with it), or null. */
function commonFolder(paths: readonly string[]): string | null {
  const first = paths[0]?.split('/')[0];
  if (first === undefined || first === '') return null;
  return paths.every((p) => p.startsWith(`${first}/`)) ? first : null;
}

/** Why a relative path is left out, as the prefix to report (`node_modules/`, `.DS_Store`), or null. */
function leftOut(path: string): string | null {
  const segments = path.split('/');
  const dir = segments.slice(0, -1).findIndex((s) => EXCLUDED_DIRS.includes(s));
  if (dir !== -1) return `${segments.slice(0, dir + 1).join('/')}/`;
  return OS_FILES.includes(segments[segments.length - 1] ?? '') ? path : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The file's text, or null when its bytes are not UTF-8 text (invalid sequences, or NUL bytes). */
function decode(bytes: ArrayBuffer): string | null {
  try {
    const text = utf8.decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

/**
 * Reads a folder listing into the import payload and its summary. Throws BlueprintFolderError when
 * the folder cannot be a blueprint as it is (no files, no blueprint.yaml at its root, a
 * blueprint.yaml that does not parse, files that are not UTF-8 text), naming what to fix.
 */
export async function readBlueprintFolder(
  listing: FolderListing,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<BlueprintFolder> {
  const all = listing.files.map((f) => f.path.replace(/^\/+/, ''));
  const folder = commonFolder([...all, ...(listing.pruned ?? []).map((p) => `${p}/`)]);
  const relative = (path: string): string => (folder === null ? path : path.slice(folder.length + 1));

  const skipped = new Set<string>((listing.pruned ?? []).map((p) => `${relative(p.replace(/^\/+/, ''))}/`));
  const kept: { path: string; file: FolderFile }[] = [];
  listing.files.forEach((file, index) => {
    const path = relative(all[index] as string);
    const reason = leftOut(path);
    if (reason === null) kept.push({ path, file });
    else skipped.add(reason);
  });
  if (kept.length === 0) throw new BlueprintFolderError(`${folder ?? 'The folder'} has no files to import.`);
  kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  if (!kept.some((k) => k.path === BLUEPRINT_YAML)) {
    const nested = kept.filter((k) => k.path.endsWith(`/${BLUEPRINT_YAML}`)).map((k) => k.path.slice(0, -BLUEPRINT_YAML.length - 1));
    const hint = nested.length === 1 ? ` It is in ${nested[0]}/: choose that folder instead.` : '';
    throw new BlueprintFolderError(`There is no blueprint.yaml at the root of ${folder ?? 'these files'}.${hint}`);
  }

  const files: ImportPayload['files'] = [];
  const notText: string[] = [];
  let totalBytes = 0;
  for (const [index, { path, file }] of kept.entries()) {
    options.signal?.throwIfAborted();
    const bytes = await file.read();
    const text = decode(bytes);
    if (text === null) notText.push(path);
    else {
      files.push({ path, content_utf8: text });
      totalBytes += bytes.byteLength;
    }
    options.onProgress?.(index + 1, kept.length);
  }
  options.signal?.throwIfAborted();
  if (notText.length > 0) {
    throw new BlueprintFolderError(
      `${notText.length === 1 ? `${notText[0]} is` : `${plural(notText.length, 'file')} are`} not UTF-8 text${notText.length === 1 ? '' : ` (${someOf(notText)})`}, ` +
        'and a blueprint holds only text files. Remove or convert them, then choose the folder again.',
    );
  }
  const manifest = readManifest(files.find((f) => f.path === BLUEPRINT_YAML)?.content_utf8 ?? '');
  return { folder, payload: { schema: IMPORT_PAYLOAD_SCHEMA, files }, totalBytes, skipped: [...skipped].sort(), blueprint: manifest };
}
