/**
 * Team assets (research B7, C4): images stored in the database (png/jpeg/gif/webp, at most
 * 256 KiB, magic bytes must agree with the declared type) and videos uploaded straight to this
 * node through a one-time URL (TTL 1 h). Served publicly by id at `/assets/{asset_id}`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { NodeContext } from '../../context.ts';
import { isoNow } from '../../clock.ts';
import { sha256Hex } from '../../crypto/encoding.ts';
import { invalid, malformed, notFound, ServiceError, tooLarge, unsupportedMediaType } from '../../errors.ts';
import { IMAGE_TYPES, isImageType, looksLikeVideo, sniffImage, type ImageType, type VideoType } from './domain/image-magic.ts';

export const IMAGE_MAX_BYTES = 256 * 1024;
/** The direct-upload route's own body limit (the listener's default is 2 MiB). */
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
export const MAX_VIDEO_DURATION_SECONDS = 600;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export type AssetStatus = 'pending_upload' | 'ready' | 'error';

export interface AssetView {
  asset_id: string;
  kind: 'image' | 'video';
  url: string;
  content_type: string;
  bytes: number | null;
  status: AssetStatus;
  created_at: string;
  filename?: string | null;
  max_duration_seconds?: number | null;
  upload_expires_at?: string | null;
}

export interface DirectUpload {
  asset_id: string;
  kind: 'video';
  upload_url: string;
  upload_expires_at: string;
  status: 'pending_upload';
  content_type: VideoType;
}

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

const gone = (detail: string) => new ServiceError(410, 'SVC_ERR_GONE', detail);

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

/** The content type without parameters, lower-cased. */
function bareType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export class Assets {
  readonly #ctx: NodeContext;

  constructor(ctx: NodeContext) {
    this.#ctx = ctx;
  }

  /** The docs surface's origin, which serves `/assets/{id}` publicly. */
  get origin(): string {
    return this.#ctx.urls.docs_url;
  }

  urlOf(assetId: string): string {
    return `${this.origin}/assets/${assetId}`;
  }

  /** Stores an already checked image; returns its id. Runs inside a caller's transaction too. */
  insertImage(teamId: string, contentType: ImageType, bytes: Buffer): string {
    const assetId = randomUUID();
    const now = isoNow(this.#ctx.clock);
    this.#ctx.db
      .prepare(
        `INSERT INTO docs_assets (asset_id, team_id, kind, content_type, status, data, bytes, created_at, updated_at)
         VALUES (?, ?, 'image', ?, 'ready', ?, ?, ?, ?)`,
      )
      .run(assetId, teamId, contentType, bytes, bytes.length, now, now);
    return assetId;
  }

  /** POST /v1/assets. */
  createImage(teamId: string, contentType: string, dataBase64: string): AssetView {
    if (!isImageType(contentType)) throw invalid(`content_type ${contentType} is not allowed; use one of ${IMAGE_TYPES.join(', ')}`);
    const bytes = decodeImageBase64(dataBase64, 'data_base64');
    const type = checkImage(contentType, bytes, 'data_base64');
    return this.get(teamId, this.insertImage(teamId, type, bytes));
  }

  /** POST /v1/assets/video/direct-upload: a pending video and its one-time upload URL. */
  startVideo(teamId: string, input: { content_type: VideoType; filename?: string | undefined; max_duration_seconds?: number | undefined }): DirectUpload {
    const assetId = randomUUID();
    const token = randomBytes(32).toString('base64url');
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + UPLOAD_TTL_MS).toISOString();
    const duration = Math.min(input.max_duration_seconds ?? MAX_VIDEO_DURATION_SECONDS, MAX_VIDEO_DURATION_SECONDS);
    this.#ctx.db
      .prepare(
        `INSERT INTO docs_assets (asset_id, team_id, kind, content_type, status, filename, max_duration_seconds,
           upload_token_sha256, upload_expires_at, created_at, updated_at)
         VALUES (?, ?, 'video', ?, 'pending_upload', ?, ?, ?, ?, ?, ?)`,
      )
      .run(assetId, teamId, input.content_type, input.filename ?? null, duration, sha256Hex(token), expiresAt, now.toISOString(), now.toISOString());
    return {
      asset_id: assetId,
      kind: 'video',
      upload_url: `${this.#ctx.urls.docs_url}/v1/assets/${assetId}/upload?token=${token}`,
      upload_expires_at: expiresAt,
      status: 'pending_upload',
      content_type: input.content_type,
    };
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

  #view(row: AssetRow): AssetView {
    const status: AssetStatus = row.status === 'pending_upload' && this.#expired(row) ? 'error' : row.status;
    const base = { asset_id: row.asset_id, kind: row.kind, url: this.urlOf(row.asset_id), content_type: row.content_type, bytes: row.bytes, status, created_at: row.created_at };
    if (row.kind === 'image') return base;
    return { ...base, filename: row.filename, max_duration_seconds: row.max_duration_seconds, upload_expires_at: row.status === 'ready' ? null : row.upload_expires_at };
  }

  /** GET /v1/assets/{asset_id}: another team's asset is simply not found. */
  get(teamId: string, assetId: string): AssetView {
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

  /** GET /assets/{asset_id} (public by id): the stored bytes of a ready asset, or null. */
  content(assetId: string): { content_type: string; data: Buffer } | null {
    if (!UUID.test(assetId)) return null;
    const row = this.#ctx.db
      .prepare(`SELECT content_type, data FROM docs_assets WHERE asset_id = ? AND status = 'ready' AND data IS NOT NULL`)
      .get(assetId) as { content_type: string; data: Buffer } | undefined;
    return row ?? null;
  }

  /**
   * Checks a direct upload before its body is read: the token must be this pending video's
   * (404 otherwise, also once used), unexpired (410) and the content type the declared one (415).
   */
  checkUpload(assetId: string, token: unknown, contentType: string | undefined): void {
    const row = this.#row(assetId);
    const hash = typeof token === 'string' && token.length > 0 && token.length <= 128 ? sha256Hex(token) : null;
    if (!row || row.kind !== 'video' || row.status !== 'pending_upload' || hash === null || row.upload_token_sha256 !== hash) {
      throw notFound('No pending upload for this URL (it may have been used already)');
    }
    if (this.#expired(row)) throw gone(`This upload URL expired at ${row.upload_expires_at}; request a new one`);
    if (bareType(contentType) !== row.content_type) {
      throw unsupportedMediaType(`This upload takes Content-Type: ${row.content_type}, not ${contentType ?? '(none)'}`);
    }
  }

  /** PUT {upload_url}: stores the bytes once; the token is spent in the same statement. */
  completeUpload(assetId: string, token: string, contentType: string | undefined, bytes: Buffer): AssetView {
    this.checkUpload(assetId, token, contentType);
    if (bytes.length === 0) throw malformed('The upload is empty');
    if (!looksLikeVideo(bytes, bareType(contentType) as VideoType)) throw invalid(`The bytes are not a ${bareType(contentType)} video`);
    const result = this.#ctx.db
      .prepare(
        `UPDATE docs_assets SET status = 'ready', data = ?, bytes = ?, upload_token_sha256 = NULL, updated_at = ?
         WHERE asset_id = ? AND status = 'pending_upload' AND upload_token_sha256 = ?`,
      )
      .run(bytes, bytes.length, isoNow(this.#ctx.clock), assetId, sha256Hex(token));
    if (result.changes !== 1) throw notFound('No pending upload for this URL (it may have been used already)');
    const row = this.#row(assetId)!;
    return this.#view(row);
  }
}
