/**
 * Video direct uploads (docs/adr/0006-library-and-document-surfaces.md: a one-time local URL where
 * upstream uses a video host): a pending video and its one-time upload URL, then the PUT of its
 * bytes, streamed to disk (asset-files.ts) and never held whole in memory.
 *
 * Bounded while the bytes arrive, not after: at most VIDEO_MAX_BYTES per file (413) and the team's
 * storage quota counting its other uploads in progress (402, storage-quota.ts), both checked on
 * the declared Content-Length before any byte is read and again on every chunk; the first bytes
 * must start the declared container (422); a stall of UPLOAD_IDLE_MS or the URL's expiry ends the
 * upload. One upload per URL at a time (409). A refused or broken upload leaves no file, and its
 * URL stays usable until it expires. Pending videos whose URL expired, and files no ready video
 * owns (a crash mid-upload), are removed at start and every UPLOAD_SWEEP_MS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Asset, DirectUpload, VideoInput } from '../../../../contract/docs/assets.ts';
import type { NodeContext } from '../../../context.ts';
import { isoNow } from '../../../clock.ts';
import { sha256Hex } from '../../../crypto/encoding.ts';
import { conflict, gone, invalid, malformed, notFound, ServiceError, tooLarge, unavailable, unsupportedMediaType } from '../../../errors.ts';
import type { AssetFiles } from './asset-files.ts';
import type { Assets } from './service.ts';
import { isAssetId } from '../domain/asset-id.ts';
import { looksLikeVideo, type VideoType } from '../domain/image-magic.ts';
import type { StorageQuota } from './storage-quota.ts';
import { deletePendingAsset, expiredPendingVideoIds, findAsset, insertPendingVideo, markVideoReady, videoIdsOnDisk, type AssetRow } from './store.ts';
import type { DocsUrls } from '../urls.ts';

/** The largest video file. */
export const VIDEO_MAX_BYTES = 200 * 1024 * 1024;
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
/** An upload that sends nothing for this long is dropped. */
export const UPLOAD_IDLE_MS = 60_000;
/** How often unfinished uploads are cleaned up (and once at start). */
export const UPLOAD_SWEEP_MS = 10 * 60_000;
export const MAX_VIDEO_DURATION_SECONDS = 600;

/** Bytes enough for the container checks of domain/image-magic.ts. */
const MAGIC_BYTES = 12;

const NOT_PENDING = 'No pending upload for this URL (it may have been used already)';

/** The content type without parameters, lower-cased. */
function bareType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** A Content-Length header as a number, or null when absent or not a plain decimal. */
function declaredLength(header: string | undefined): number | null {
  return header !== undefined && /^\d{1,16}$/.test(header) ? Number(header) : null;
}

export class VideoUploads {
  readonly #ctx: NodeContext;
  readonly #assets: Assets;
  readonly #files: AssetFiles;
  readonly #quota: StorageQuota;
  readonly #urls: DocsUrls;
  /** Assets whose bytes are arriving now. */
  readonly #receiving = new Set<string>();
  #sweeper: NodeJS.Timeout | null = null;

  constructor(ctx: NodeContext, assets: Assets, files: AssetFiles, quota: StorageQuota, urls: DocsUrls) {
    this.#ctx = ctx;
    this.#assets = assets;
    this.#files = files;
    this.#quota = quota;
    this.#urls = urls;
  }

  /** POST /v1/assets/video/direct-upload: a pending video and its one-time upload URL. */
  start(teamId: string, input: VideoInput): DirectUpload {
    const assetId = randomUUID();
    const token = randomBytes(32).toString('base64url');
    const now = this.#ctx.clock.now();
    const expiresAt = new Date(now.getTime() + UPLOAD_TTL_MS).toISOString();
    const duration = Math.min(input.max_duration_seconds ?? MAX_VIDEO_DURATION_SECONDS, MAX_VIDEO_DURATION_SECONDS);
    insertPendingVideo(this.#ctx.db, {
      asset_id: assetId,
      team_id: teamId,
      content_type: input.content_type,
      filename: input.filename ?? null,
      max_duration_seconds: duration,
      upload_token_sha256: sha256Hex(token),
      upload_expires_at: expiresAt,
      created_at: now.toISOString(),
    });
    return {
      asset_id: assetId,
      kind: 'video',
      upload_url: this.#urls.upload(assetId, token),
      upload_expires_at: expiresAt,
      status: 'pending_upload',
      content_type: input.content_type,
    };
  }

  /**
   * Checks a PUT before its body is read: the token must be this pending video's (404, also once
   * used), unexpired (410), the content type the declared one (415), and a declared length within
   * the file cap (413) and the team's quota (402). Returns the pending video's team and expiry.
   */
  check(assetId: string, token: unknown, contentType: string | undefined, contentLength: string | undefined): { teamId: string; expiresAt: number } {
    const row = this.#pending(assetId, token);
    const expiresAt = Date.parse(row.upload_expires_at ?? '');
    if (!(expiresAt > this.#ctx.clock.now().getTime())) {
      throw gone('SVC_ERR_UPLOAD_URL_EXPIRED', `This upload URL expired at ${row.upload_expires_at}; request a new one`);
    }
    if (bareType(contentType) !== row.content_type) {
      throw unsupportedMediaType('SVC_ERR_UNSUPPORTED_MEDIA_TYPE', `This upload takes Content-Type: ${row.content_type}, not ${contentType ?? '(none)'}`);
    }
    const length = declaredLength(contentLength);
    if (length !== null) {
      if (length > VIDEO_MAX_BYTES) throw tooLarge('SVC_ERR_ASSET_TOO_LARGE', this.#tooLargeDetail());
      this.#quota.check(row.team_id, length);
    }
    return { teamId: row.team_id, expiresAt };
  }

  /** PUT {upload_url}: streams `body` to disk within the caps, then marks the video ready and spends the token. */
  async receive(assetId: string, token: string, contentType: string | undefined, contentLength: string | undefined, body: Readable): Promise<Asset> {
    const { teamId, expiresAt } = this.check(assetId, token, contentType, contentLength);
    if (this.#receiving.has(assetId)) throw conflict('SVC_ERR_UPLOAD_IN_PROGRESS', 'An upload to this URL is already in progress');
    this.#receiving.add(assetId);
    const reservation = this.#quota.reserve(teamId);
    const type = bareType(contentType) as VideoType;
    const head: Buffer[] = [];
    let headBytes = 0;
    const checkMagic = (): void => {
      if (!looksLikeVideo(Buffer.concat(head), type)) throw invalid('SVC_ERR_ASSET_BYTES_MISMATCH', `The bytes are not a ${type} video`);
    };
    const stop = (reason: string) => () => body.destroy(new Error(reason));
    const idle = setTimeout(stop('idle'), UPLOAD_IDLE_MS);
    const deadline = setTimeout(stop('expired'), Math.max(0, expiresAt - this.#ctx.clock.now().getTime()));
    let received = false;
    let stored = false;
    try {
      const bytes = await this.#files
        .receive(assetId, body.iterator({ destroyOnReturn: false }), (chunk, total) => {
          idle.refresh();
          if (total > VIDEO_MAX_BYTES) throw tooLarge('SVC_ERR_ASSET_TOO_LARGE', this.#tooLargeDetail());
          reservation.grow(chunk.length);
          if (headBytes < MAGIC_BYTES) {
            head.push(chunk.subarray(0, MAGIC_BYTES - headBytes));
            headBytes += Math.min(chunk.length, MAGIC_BYTES - headBytes);
            if (headBytes >= MAGIC_BYTES) checkMagic();
          }
        })
        .catch((error: unknown) => {
          if (error instanceof ServiceError) throw error;
          // The connection broke, stalled or outlived the URL; else the disk failed (full, say).
          if (body.destroyed) throw malformed('SVC_ERR_UPLOAD_INTERRUPTED', 'The upload was interrupted before all its bytes arrived; nothing was stored');
          throw unavailable(
            'SVC_ERR_UPLOAD_STORAGE_FAILED',
            `The upload could not be stored (${(error as { code?: string }).code ?? 'disk error'}); nothing was stored`,
          );
        });
      received = true;
      if (bytes === 0) throw malformed('SVC_ERR_UPLOAD_EMPTY', 'The upload is empty');
      if (headBytes < MAGIC_BYTES) checkMagic();
      await this.#files.publish(assetId);
      // The file is in place (renamed first, so a crash leaves at worst a file the sweep removes,
      // never a ready video without its bytes): mark it ready and spend the token, in one statement.
      stored = markVideoReady(this.#ctx.db, assetId, sha256Hex(token), bytes, isoNow(this.#ctx.clock));
      if (!stored) throw notFound('SVC_ERR_UPLOAD_NOT_PENDING', NOT_PENDING);
      this.#quota.changed(teamId);
      return this.#assets.get(teamId, assetId);
    } catch (error) {
      // A receive that failed has already removed its partial file; waiting here on more disk work
      // would keep the URL taken (409) after its file was visibly gone, and a client retrying a
      // dropped upload at once would be refused.
      if (received && !stored) await this.#files.discard(assetId);
      throw error;
    } finally {
      clearTimeout(idle);
      clearTimeout(deadline);
      reservation.release();
      this.#receiving.delete(assetId);
    }
  }

  /** Starts the cleanup: once now, then every UPLOAD_SWEEP_MS. */
  startSweeping(): void {
    this.sweep();
    this.#sweeper = setInterval(() => {
      try {
        this.sweep();
      } catch {
        // A file that cannot be removed now is tried again next round; a cleanup never stops the node.
      }
    }, UPLOAD_SWEEP_MS).unref();
  }

  stopSweeping(): void {
    if (this.#sweeper !== null) clearInterval(this.#sweeper);
    this.#sweeper = null;
  }

  /** Removes pending videos whose URL expired (rows) and files no ready video owns. */
  sweep(): { rows: number; files: number } {
    const { db } = this.#ctx;
    let rows = 0;
    for (const assetId of expiredPendingVideoIds(db, this.#ctx.clock.now().toISOString())) {
      if (!this.#receiving.has(assetId) && deletePendingAsset(db, assetId)) rows++;
    }
    const onDisk = new Set(videoIdsOnDisk(db));
    const files = this.#files.sweep(
      (assetId) => onDisk.has(assetId),
      (assetId) => this.#receiving.has(assetId),
    );
    return { rows, files };
  }

  /** The pending video behind a URL's token, else a 404 that says no more. */
  #pending(assetId: string, token: unknown): AssetRow {
    const row = isAssetId(assetId) ? findAsset(this.#ctx.db, assetId) : undefined;
    const hash = typeof token === 'string' && token.length > 0 && token.length <= 128 ? sha256Hex(token) : null;
    if (!row || row.kind !== 'video' || row.status !== 'pending_upload' || hash === null || row.upload_token_sha256 !== hash)
      throw notFound('SVC_ERR_UPLOAD_NOT_PENDING', NOT_PENDING);
    return row;
  }

  #tooLargeDetail(): string {
    return `A video may be at most ${VIDEO_MAX_BYTES} bytes (${VIDEO_MAX_BYTES / (1024 * 1024)} MiB); nothing was stored`;
  }
}
