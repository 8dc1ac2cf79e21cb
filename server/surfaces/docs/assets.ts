/**
 * Team assets (research B7, C4): images stored in the database (png/jpeg/gif/webp, at most
 * 256 KiB, magic bytes must agree with the declared type) and videos uploaded straight to this
 * node through a one-time URL (video-uploads.ts) and kept as files (asset-files.ts). Served
 * publicly by id at `/assets/{asset_id}`. Every stored byte counts against the team's storage
 * quota (storage-quota.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Asset } from '../../../contract/docs/assets.ts';
import { IMAGE_MAX_BYTES } from '../../../contract/docs/rules.ts';
import type { NodeContext } from '../../context.ts';
import { isoNow } from '../../clock.ts';
import { invalid, malformed, notFound, tooLarge } from '../../errors.ts';
import type { AssetFiles } from './asset-files.ts';
import { IMAGE_TYPES, isImageType, sniffImage, type ImageType } from './domain/image-magic.ts';
import type { StorageQuota } from './storage-quota.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asset ids are lower-case UUIDs; anything else names no asset (and no file). */
export const isAssetId = (value: string): boolean => UUID.test(value);

interface AssetRow {
  asset_id: string;
  team_id: string;
  kind: 'image' | 'video';
  content_type: string;
  status: 'pending_upload' | 'ready';
  bytes: number | null;
  filename: string | null;
  max_duration_seconds: number | null;
  upload_token_sha256: string | null;
  upload_expires_at: string | null;
  created_at: string;
}

/**
 * The bytes behind `/assets/{id}`: images, and videos stored before videos moved to disk, from the
 * database; every other video from its file.
 */
export type AssetContent = { content_type: string; data: Buffer } | { content_type: string; file: string; bytes: number };

/**
 * Strict standard base64 (padded, canonical) of an image of at most IMAGE_MAX_BYTES: 400 for
 * text that is not base64, 413 beyond the cap (checked on the text's length before decoding).
 */
export function decodeImageBase64(text: string, field: string): Buffer {
  if (text.length > Math.ceil(IMAGE_MAX_BYTES / 3) * 4) throw tooLarge(`${field} is larger than ${IMAGE_MAX_BYTES} bytes (256 KiB)`);
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0 ? Buffer.from(text, 'base64') : null;
  if (bytes === null || bytes.toString('base64') !== text) throw malformed(`${field} is not strict standard base64 (with padding)`);
  if (bytes.length === 0) throw malformed(`${field} is empty`);
  if (bytes.length > IMAGE_MAX_BYTES) throw tooLarge(`${field} is larger than ${IMAGE_MAX_BYTES} bytes (256 KiB)`);
  return bytes;
}

/** The image's bytes must be what `contentType` says: 422 naming both otherwise. */
export function checkImage(contentType: string, bytes: Buffer, field: string): ImageType {
  if (!isImageType(contentType)) throw invalid(`${field}: content type ${contentType} is not allowed; use one of ${IMAGE_TYPES.join(', ')}`);
  const sniffed = sniffImage(bytes);
  if (sniffed !== contentType) {
    throw invalid(`${field}: the bytes are ${sniffed ?? 'not a png, jpeg, gif or webp image'}, not the declared ${contentType}`);
  }
  return sniffed;
}

export class Assets {
  readonly #ctx: NodeContext;
  readonly #files: AssetFiles;
  readonly #quota: StorageQuota;

  constructor(ctx: NodeContext, files: AssetFiles, quota: StorageQuota) {
    this.#ctx = ctx;
    this.#files = files;
    this.#quota = quota;
  }

  /** The docs surface's origin, which serves `/assets/{id}` publicly. */
  get origin(): string {
    return this.#ctx.urls.docs_url;
  }

  urlOf(assetId: string): string {
    return `${this.origin}/assets/${assetId}`;
  }

  /** Stores an already checked image within the quota (402); returns its id. Runs inside a caller's transaction too. */
  insertImage(teamId: string, contentType: ImageType, bytes: Buffer): string {
    this.#quota.check(teamId, bytes.length);
    const assetId = randomUUID();
    const now = isoNow(this.#ctx.clock);
    this.#ctx.db
      .prepare(
        `INSERT INTO docs_assets (asset_id, team_id, kind, content_type, status, data, bytes, created_at, updated_at)
         VALUES (?, ?, 'image', ?, 'ready', ?, ?, ?, ?)`,
      )
      .run(assetId, teamId, contentType, bytes, bytes.length, now, now);
    this.#quota.changed(teamId);
    return assetId;
  }

  /** POST /v1/assets. */
  createImage(teamId: string, contentType: string, dataBase64: string): Asset {
    if (!isImageType(contentType)) throw invalid(`content_type ${contentType} is not allowed; use one of ${IMAGE_TYPES.join(', ')}`);
    const bytes = decodeImageBase64(dataBase64, 'data_base64');
    const type = checkImage(contentType, bytes, 'data_base64');
    return this.get(teamId, this.insertImage(teamId, type, bytes));
  }

  #row(assetId: string): AssetRow | undefined {
    if (!UUID.test(assetId)) return undefined;
    return this.#ctx.db
      .prepare(
        `SELECT asset_id, team_id, kind, content_type, status, bytes, filename, max_duration_seconds,
           upload_token_sha256, upload_expires_at, created_at FROM docs_assets WHERE asset_id = ?`,
      )
      .get(assetId) as AssetRow | undefined;
  }

  #expired(row: AssetRow): boolean {
    return row.upload_expires_at !== null && Date.parse(row.upload_expires_at) <= this.#ctx.clock.now().getTime();
  }

  #view(row: AssetRow): Asset {
    const status: Asset['status'] = row.status === 'pending_upload' && this.#expired(row) ? 'error' : row.status;
    const base = { asset_id: row.asset_id, kind: row.kind, url: this.urlOf(row.asset_id), content_type: row.content_type, bytes: row.bytes, status, created_at: row.created_at };
    if (row.kind === 'image') return base;
    return { ...base, filename: row.filename, max_duration_seconds: row.max_duration_seconds, upload_expires_at: row.status === 'ready' ? null : row.upload_expires_at };
  }

  /** GET /v1/assets/{asset_id}: another team's asset is simply not found. */
  get(teamId: string, assetId: string): Asset {
    const row = this.#row(assetId);
    if (!row || row.team_id !== teamId) throw notFound(`No asset ${assetId}`);
    return this.#view(row);
  }

  /** The ids of the team's assets (present pages embed only these). */
  assetIdsOf(teamId: string): Set<string> {
    return new Set(
      this.#ctx.db.prepare(`SELECT asset_id FROM docs_assets WHERE team_id = ? AND kind = 'image' AND status = 'ready'`).pluck().all(teamId) as string[],
    );
  }

  /** GET /assets/{asset_id} (public by id): the bytes of a ready asset, or null. */
  content(assetId: string): AssetContent | null {
    if (!UUID.test(assetId)) return null;
    const row = this.#ctx.db
      .prepare(`SELECT content_type, data FROM docs_assets WHERE asset_id = ? AND status = 'ready'`)
      .get(assetId) as { content_type: string; data: Buffer | null } | undefined;
    if (!row) return null;
    if (row.data !== null) return { content_type: row.content_type, data: row.data };
    const bytes = this.#files.sizeOf(assetId);
    return bytes === null ? null : { content_type: row.content_type, file: this.#files.pathOf(assetId), bytes };
  }
}
