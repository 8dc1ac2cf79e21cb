/**
 * Team assets (docs/adr/0006-library-and-document-surfaces.md): images stored in the database
 * (png/jpeg/gif/webp, at most 256 KiB, magic bytes must agree with the declared type) and videos
 * uploaded straight to this node through a one-time URL (video-uploads.ts) and kept as files
 * (asset-files.ts). Served publicly by id at `/assets/{asset_id}`. Every stored byte counts against
 * the team's storage quota (storage-quota.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Asset } from '../../../../contract/docs/assets.ts';
import { IMAGE_MAX_BYTES } from '../../../../contract/docs/rules.ts';
import type { NodeContext } from '../../../context.ts';
import { isoNow } from '../../../clock.ts';
import { invalid, malformed, notFound, tooLarge } from '../../../errors.ts';
import type { AssetFiles } from './asset-files.ts';
import { isAssetId } from '../domain/asset-id.ts';
import { IMAGE_TYPES, isImageType, sniffImage, type ImageType } from '../domain/image-magic.ts';
import type { StorageQuota } from './storage-quota.ts';
import { findAsset, findReadyContent, insertImage, readyImageIds, toAsset } from './store.ts';
import type { DocsUrls } from '../urls.ts';

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
  if (text.length > Math.ceil(IMAGE_MAX_BYTES / 3) * 4) throw tooLarge('SVC_ERR_ASSET_TOO_LARGE', `${field} is larger than ${IMAGE_MAX_BYTES} bytes (256 KiB)`);
  const bytes = /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 === 0 ? Buffer.from(text, 'base64') : null;
  if (bytes === null || bytes.toString('base64') !== text)
    throw malformed('SVC_ERR_IMAGE_BASE64_INVALID', `${field} is not strict standard base64 (with padding)`);
  if (bytes.length === 0) throw malformed('SVC_ERR_IMAGE_BASE64_INVALID', `${field} is empty`);
  if (bytes.length > IMAGE_MAX_BYTES) throw tooLarge('SVC_ERR_ASSET_TOO_LARGE', `${field} is larger than ${IMAGE_MAX_BYTES} bytes (256 KiB)`);
  return bytes;
}

/** The image's bytes must be what `contentType` says: 422 naming both otherwise. */
export function checkImage(contentType: string, bytes: Buffer, field: string): ImageType {
  if (!isImageType(contentType))
    throw invalid('SVC_ERR_IMAGE_TYPE_NOT_ALLOWED', `${field}: content type ${contentType} is not allowed; use one of ${IMAGE_TYPES.join(', ')}`);
  const sniffed = sniffImage(bytes);
  if (sniffed !== contentType) {
    throw invalid(
      'SVC_ERR_ASSET_BYTES_MISMATCH',
      `${field}: the bytes are ${sniffed ?? 'not a png, jpeg, gif or webp image'}, not the declared ${contentType}`,
    );
  }
  return sniffed;
}

export class Assets {
  readonly #ctx: NodeContext;
  readonly #files: AssetFiles;
  readonly #quota: StorageQuota;
  readonly #urls: DocsUrls;

  constructor(ctx: NodeContext, files: AssetFiles, quota: StorageQuota, urls: DocsUrls) {
    this.#ctx = ctx;
    this.#files = files;
    this.#quota = quota;
    this.#urls = urls;
  }

  /** Stores an already checked image within the quota (402); returns its id. Runs inside a caller's transaction too. */
  insertImage(teamId: string, contentType: ImageType, bytes: Buffer): string {
    this.#quota.check(teamId, bytes.length);
    const assetId = randomUUID();
    insertImage(this.#ctx.db, { asset_id: assetId, team_id: teamId, content_type: contentType, data: bytes, created_at: isoNow(this.#ctx.clock) });
    this.#quota.changed(teamId);
    return assetId;
  }

  /** POST /v1/assets. */
  createImage(teamId: string, contentType: string, dataBase64: string): Asset {
    if (!isImageType(contentType))
      throw invalid('SVC_ERR_IMAGE_TYPE_NOT_ALLOWED', `content_type ${contentType} is not allowed; use one of ${IMAGE_TYPES.join(', ')}`);
    const bytes = decodeImageBase64(dataBase64, 'data_base64');
    const type = checkImage(contentType, bytes, 'data_base64');
    return this.get(teamId, this.insertImage(teamId, type, bytes));
  }

  /** GET /v1/assets/{asset_id}: another team's asset is simply not found. */
  get(teamId: string, assetId: string): Asset {
    const row = isAssetId(assetId) ? findAsset(this.#ctx.db, assetId) : undefined;
    if (!row || row.team_id !== teamId) throw notFound('SVC_ERR_ASSET_NOT_FOUND', `No asset ${assetId}`);
    return toAsset(row, this.#urls.asset(row.asset_id), this.#ctx.clock.now().getTime());
  }

  /** The ids of the team's assets (present pages embed only these). */
  assetIdsOf(teamId: string): Set<string> {
    return new Set(readyImageIds(this.#ctx.db, teamId));
  }

  /** GET /assets/{asset_id} (public by id): the bytes of a ready asset, or null. */
  content(assetId: string): AssetContent | null {
    if (!isAssetId(assetId)) return null;
    const row = findReadyContent(this.#ctx.db, assetId);
    if (!row) return null;
    if (row.data !== null) return { content_type: row.content_type, data: row.data };
    const bytes = this.#files.sizeOf(assetId);
    return bytes === null ? null : { content_type: row.content_type, file: this.#files.pathOf(assetId), bytes };
  }
}
