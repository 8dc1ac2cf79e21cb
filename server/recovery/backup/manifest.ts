/**
 * A backup's manifest: what restores it (its chunks in order, the image's size and page size) and
 * what it is (the node, when, which schema), sealed as one AES-256-GCM box under the manifest key,
 * with its id bound as associated data: a manifest renamed, changed or swapped fails to open.
 */
import { open, seal } from '../../custody/aead.ts';
import { isAssetList, type ManifestAsset } from './asset-files.ts';
import { BackupTamperedError } from './errors.ts';
import type { BackupKeys } from './keys.ts';
import type { PageRun } from './layout.ts';

const FORMAT = 'svc-node.backup-manifest';
const MANIFEST_AAD = 'svc-node backup manifest v1\n';

export interface Manifest {
  format: typeof FORMAT;
  v: 1;
  backup_id: string;
  node_id: string;
  /** RFC 3339 UTC, the time the pages were read. */
  created_at: string;
  /** The newest migration the database had recorded. */
  schema_version: number;
  page_size: number;
  image_size: number;
  /** Each chunk's name and the pages it holds, in the order they are in it. */
  chunks: ManifestChunk[];
  /** The documents' uploaded files beside the database (asset-files.ts); absent in a backup of none. */
  assets?: ManifestAsset[];
}

export interface ManifestChunk {
  name: string;
  pages: PageRun[];
}

export type ManifestFields = Omit<Manifest, 'format' | 'v'>;

export function sealManifest(keys: BackupKeys, fields: ManifestFields): Buffer {
  const manifest: Manifest = { format: FORMAT, v: 1, ...fields };
  return seal(keys.manifest, Buffer.from(JSON.stringify(manifest), 'utf8'), aad(fields.backup_id));
}

/** The manifest stored as `id`; a BackupTamperedError when it does not open under that id or does not describe a whole image. */
export function openManifest(keys: BackupKeys, id: string, box: Uint8Array): Manifest {
  const plaintext = open(keys.manifest, box, aad(id));
  if (plaintext === null) throw new BackupTamperedError(`the manifest of backup ${id} does not pass its check`);
  // Sealed by this key, so written by this code; checked all the same before a restore leans on it.
  const manifest = JSON.parse(plaintext.toString('utf8')) as Record<keyof Manifest, unknown>;
  const { format, v, backup_id, page_size, image_size, chunks, assets } = manifest;
  const whole =
    format === FORMAT &&
    v === 1 &&
    backup_id === id &&
    typeof page_size === 'number' &&
    Number.isInteger(page_size) &&
    page_size >= 512 &&
    typeof image_size === 'number' &&
    Number.isInteger(image_size) &&
    image_size % page_size === 0 &&
    Array.isArray(chunks) &&
    chunks.every((chunk: Partial<ManifestChunk>) => typeof chunk.name === 'string' && Array.isArray(chunk.pages)) &&
    (assets === undefined || isAssetList(assets));
  if (!whole) throw new BackupTamperedError(`the manifest of backup ${id} does not describe a whole database`);
  return manifest as Manifest;
}

function aad(id: string): Buffer {
  return Buffer.from(`${MANIFEST_AAD}${id}`, 'utf8');
}
