import { describe, expect, it } from 'vitest';
import { BlueprintFolderError, IMPORT_PAYLOAD_SCHEMA, listingFromEntries, listingFromFiles, readBlueprintFolder } from './blueprint-folder.ts';
import type { EntryLike, FileLike } from './blueprint-folder.ts';

const BLUEPRINT = 'id: docs.team\nversion: 1.2.0\nname: Docs crew\nprofiles:\n  - id: editor\n    default_count: 1\n  - id: checker\n';

/** A File as `<input webkitdirectory>` gives it: name, the path below the chosen folder's parent, bytes. */
function file(relativePath: string, content: string | Uint8Array): FileLike {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return {
    name: relativePath.split('/').pop() as string,
    webkitRelativePath: relativePath,
    arrayBuffer: async () => bytes.slice().buffer as ArrayBuffer,
  };
}

const folder = (files: Record<string, string | Uint8Array>, top = 'docs.team') =>
  listingFromFiles(Object.entries(files).map(([path, content]) => file(`${top}/${path}`, content)));

describe('readBlueprintFolder', () => {
  it('builds the canonical payload with paths relative to the chosen folder, sorted, nothing computed', async () => {
    const read = await readBlueprintFolder(
      folder({
        'profiles/editor/profile.yaml': 'id: editor\nversion: 0.1.0\n',
        'blueprint.yaml': BLUEPRINT,
        'README.md': '# Docs crew\n\nWrites the docs. ✍️\n',
        'profiles/editor/instructions.md': '# Editor\n',
      }),
    );
    expect(read.folder).toBe('docs.team');
    expect(read.payload).toEqual({
      schema: IMPORT_PAYLOAD_SCHEMA,
      files: [
        { path: 'README.md', content_utf8: '# Docs crew\n\nWrites the docs. ✍️\n' },
        { path: 'blueprint.yaml', content_utf8: BLUEPRINT },
        { path: 'profiles/editor/instructions.md', content_utf8: '# Editor\n' },
        { path: 'profiles/editor/profile.yaml', content_utf8: 'id: editor\nversion: 0.1.0\n' },
      ],
    });
    expect(Object.keys(read.payload.files[0] as object)).toEqual(['path', 'content_utf8']);
    expect(read.blueprint).toEqual({ id: 'docs.team', version: '1.2.0', name: 'Docs crew', profiles: ['editor', 'checker'] });
    // UTF-8 bytes, not characters: "✍️" is 6 bytes.
    const bytes = read.payload.files.reduce((sum, f) => sum + new TextEncoder().encode(f.content_utf8).length, 0);
    expect(read.totalBytes).toBe(bytes);
    expect(read.skipped).toEqual([]);
  });

  it('leaves out the directories the library excludes, at any depth, and OS files', async () => {
    const read = await readBlueprintFolder(
      folder({
        'blueprint.yaml': BLUEPRINT,
        '.git/HEAD': 'ref: refs/heads/main\n',
        '.git/objects/ab/cdef': new Uint8Array([0x78, 0x9c, 0xff, 0x00]),
        'node_modules/x/index.js': 'module.exports = 1;\n',
        'profiles/editor/profile.yaml': 'id: editor\n',
        'profiles/editor/__pycache__/a.pyc': new Uint8Array([0xff, 0xfe]),
        'profiles/editor/.DS_Store': new Uint8Array([0, 0, 0, 1, 0xff]),
        'profiles/editor/build.md': 'a file called build is fine\n',
      }),
    );
    expect(read.payload.files.map((f) => f.path)).toEqual(['blueprint.yaml', 'profiles/editor/build.md', 'profiles/editor/profile.yaml']);
    expect(read.skipped).toEqual(['.git/', 'node_modules/', 'profiles/editor/.DS_Store', 'profiles/editor/__pycache__/']);
  });

  it('refuses files that are not UTF-8 text, naming them', async () => {
    const listing = folder({
      'blueprint.yaml': BLUEPRINT,
      'profiles/editor/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff]),
      'profiles/editor/latin1.md': new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    const refusal = readBlueprintFolder(listing);
    await expect(refusal).rejects.toThrow(BlueprintFolderError);
    await expect(refusal).rejects.toThrow(
      /2 files are not UTF-8 text \(profiles\/editor\/latin1\.md, profiles\/editor\/logo\.png\), and a blueprint holds only text files/,
    );

    // Valid UTF-8 with NUL bytes is binary too (the node refuses NUL).
    await expect(readBlueprintFolder(folder({ 'blueprint.yaml': BLUEPRINT, 'data.bin': 'a\u0000b' }))).rejects.toThrow(/^data\.bin is not UTF-8 text, /);
  });

  it('keeps a byte-order mark as part of the text', async () => {
    const read = await readBlueprintFolder(folder({ 'blueprint.yaml': BLUEPRINT, 'notes.md': new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]) }));
    expect(read.payload.files.find((f) => f.path === 'notes.md')?.content_utf8).toBe('\uFEFFhi');
    expect(read.totalBytes).toBe(new TextEncoder().encode(BLUEPRINT).length + 5);
  });

  it('says where blueprint.yaml is when it is not at the root', async () => {
    await expect(readBlueprintFolder(folder({ 'README.md': 'x\n', 'docs.team/blueprint.yaml': BLUEPRINT }, 'repo'))).rejects.toThrow(
      'There is no blueprint.yaml at the root of repo. It is in docs.team/: choose that folder instead.',
    );
    await expect(readBlueprintFolder(folder({ 'README.md': 'x\n' }))).rejects.toThrow('There is no blueprint.yaml at the root of docs.team.');
    await expect(readBlueprintFolder(folder({ '.git/HEAD': 'x\n' }))).rejects.toThrow('docs.team has no files to import.');
  });

  it('explains a blueprint.yaml that does not parse, and leaves missing fields to the node', async () => {
    await expect(readBlueprintFolder(folder({ 'blueprint.yaml': 'id: [docs\n' }))).rejects.toThrow(/^blueprint\.yaml does not parse/);
    await expect(readBlueprintFolder(folder({ 'blueprint.yaml': '- a\n' }))).rejects.toThrow(/must be a mapping/);
    const read = await readBlueprintFolder(folder({ 'blueprint.yaml': 'name: Nameless\nversion: 2\n' }));
    expect(read.blueprint).toEqual({ id: null, version: '2', name: 'Nameless', profiles: [] });
  });

  it('takes loose files (no common folder) at their own paths', async () => {
    const read = await readBlueprintFolder(listingFromFiles([file('blueprint.yaml', BLUEPRINT), file('profiles/editor/profile.yaml', 'id: editor\n')]));
    expect(read.folder).toBeNull();
    expect(read.payload.files.map((f) => f.path)).toEqual(['blueprint.yaml', 'profiles/editor/profile.yaml']);
  });

  it('reports progress and stops when cancelled', async () => {
    const listing = folder({ 'blueprint.yaml': BLUEPRINT, 'a.md': 'a\n', 'b.md': 'b\n' });
    const seen: string[] = [];
    await readBlueprintFolder(listing, { onProgress: (done, total) => seen.push(`${done}/${total}`) });
    expect(seen).toEqual(['1/3', '2/3', '3/3']);

    const controller = new AbortController();
    const cancelled = readBlueprintFolder(listing, { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(cancelled).rejects.toThrow(/abort/i);
  });
});

describe('listingFromEntries (a dropped folder)', () => {
  /** A directory entry whose reader hands out its children two at a time, as readEntries batches. */
  function dir(fullPath: string, children: EntryLike[]): EntryLike {
    return {
      isFile: false,
      isDirectory: true,
      name: fullPath.split('/').pop() as string,
      fullPath,
      createReader() {
        let at = 0;
        return {
          readEntries(success) {
            const batch = children.slice(at, at + 2);
            at += batch.length;
            setTimeout(() => success(batch), 0);
          },
        };
      },
    };
  }
  let opened: string[] = [];
  function leaf(fullPath: string, content: string): EntryLike {
    return {
      isFile: true,
      isDirectory: false,
      name: fullPath.split('/').pop() as string,
      fullPath,
      file(success) {
        opened.push(fullPath);
        success(file('', content));
      },
    };
  }

  it('walks every batch of every directory, leaves excluded ones unopened, and reads files only when asked', async () => {
    opened = [];
    const modules = dir('/docs.team/node_modules', [leaf('/docs.team/node_modules/x.js', 'x')]);
    const root = dir('/docs.team', [
      leaf('/docs.team/blueprint.yaml', BLUEPRINT),
      leaf('/docs.team/README.md', '# Docs\n'),
      modules,
      dir('/docs.team/profiles', [dir('/docs.team/profiles/editor', [leaf('/docs.team/profiles/editor/profile.yaml', 'id: editor\n')])]),
    ]);
    const listing = await listingFromEntries([root]);
    expect(listing.files.map((f) => f.path)).toEqual(['docs.team/blueprint.yaml', 'docs.team/README.md', 'docs.team/profiles/editor/profile.yaml']);
    expect(listing.pruned).toEqual(['docs.team/node_modules']);
    expect(opened).toEqual([]);

    const read = await readBlueprintFolder(listing);
    expect(read.folder).toBe('docs.team');
    expect(read.payload.files.map((f) => f.path)).toEqual(['README.md', 'blueprint.yaml', 'profiles/editor/profile.yaml']);
    expect(read.skipped).toEqual(['node_modules/']);
    expect(opened).toHaveLength(3);
  });
});
