/**
 * The `docs_assets` table: a team's images (bytes in `data`) and videos (bytes in a file,
 * `data` NULL; videos stored by older versions keep theirs in `data`). A video row starts
 * `pending_upload` with the sha256 of its one-time upload token and turns `ready` when its bytes
 * arrived. Rows are never deleted once ready (their public URLs are immutable). The only module
 * that reads or writes it.
 */
import type { Asset } from '../../../../contract/docs/assets.ts';
import type { Db } from '../../../context.ts';
import type { ImageType } from '../domain/image-magic.ts';

/** A row without its bytes (`data`). */
export interface AssetRow {
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

export interface NewImageRow {
  asset_id: string;
  team_id: string;
  content_type: ImageType;
  data: Buffer;
  created_at: string;
}

export interface NewPendingVideoRow {
  asset_id: string;
  team_id: string;
  content_type: string;
  filename: string | null;
  max_duration_seconds: number;
  upload_token_sha256: string;
  upload_expires_at: string;
  created_at: string;
}

/** A ready asset's type and, for images and videos stored before videos moved to disk, its bytes. */
export interface ReadyContentRow {
  content_type: string;
  data: Buffer | null;
}

/**
 * The wire asset at `nowMs`, served at `url`: a pending video whose upload URL expired reads
 * `error`; a video carries its upload's fields (its expiry only while it is pending).
 */
export function toAsset(row: AssetRow, url: string, nowMs: number): Asset {
  const expired = row.upload_expires_at !== null && Date.parse(row.upload_expires_at) <= nowMs;
  const status: Asset['status'] = row.status === 'pending_upload' && expired ? 'error' : row.status;
  const base = { asset_id: row.asset_id, kind: row.kind, url, content_type: row.content_type, bytes: row.bytes, status, created_at: row.created_at };
  if (row.kind === 'image') return base;
  return {
    ...base,
    filename: row.filename,
    max_duration_seconds: row.max_duration_seconds,
    upload_expires_at: row.status === 'ready' ? null : row.upload_expires_at,
  };
}

/** Any team's asset, in any state. */
export function findAsset(db: Db, assetId: string): AssetRow | undefined {
  return db
    .prepare(
      `SELECT asset_id, team_id, kind, content_type, status, bytes, filename, max_duration_seconds,
         upload_token_sha256, upload_expires_at, created_at FROM docs_assets WHERE asset_id = ?`,
    )
    .get(assetId) as AssetRow | undefined;
}

/** A ready asset's content (public by id), or undefined while it is pending or unknown. */
export function findReadyContent(db: Db, assetId: string): ReadyContentRow | undefined {
  return db.prepare(`SELECT content_type, data FROM docs_assets WHERE asset_id = ? AND status = 'ready'`).get(assetId) as ReadyContentRow | undefined;
}

/** The ids of the team's ready images. */
export function readyImageIds(db: Db, teamId: string): string[] {
  return db.prepare(`SELECT asset_id FROM docs_assets WHERE team_id = ? AND kind = 'image' AND status = 'ready'`).pluck().all(teamId) as string[];
}

/** Bytes of the team's ready assets (pending uploads are not stored yet). */
export function storedAssetBytes(db: Db, teamId: string): number {
  return db.prepare(`SELECT coalesce(sum(bytes), 0) FROM docs_assets WHERE team_id = ? AND status = 'ready'`).pluck().get(teamId) as number;
}

/** An image, ready at once. */
export function insertImage(db: Db, row: NewImageRow): void {
  db.prepare(
    `INSERT INTO docs_assets (asset_id, team_id, kind, content_type, status, data, bytes, created_at, updated_at)
     VALUES (?, ?, 'image', ?, 'ready', ?, ?, ?, ?)`,
  ).run(row.asset_id, row.team_id, row.content_type, row.data, row.data.length, row.created_at, row.created_at);
}

/** A video waiting for its bytes behind a one-time upload token. */
export function insertPendingVideo(db: Db, row: NewPendingVideoRow): void {
  db.prepare(
    `INSERT INTO docs_assets (asset_id, team_id, kind, content_type, status, filename, max_duration_seconds,
       upload_token_sha256, upload_expires_at, created_at, updated_at)
     VALUES (?, ?, 'video', ?, 'pending_upload', ?, ?, ?, ?, ?, ?)`,
  ).run(
    row.asset_id,
    row.team_id,
    row.content_type,
    row.filename,
    row.max_duration_seconds,
    row.upload_token_sha256,
    row.upload_expires_at,
    row.created_at,
    row.created_at,
  );
}

/**
 * Marks a pending video ready with its size and spends its token, in one statement, only while it
 * is still pending under that token. Whether it did.
 */
export function markVideoReady(db: Db, assetId: string, tokenSha256: string, bytes: number, updatedAt: string): boolean {
  const result = db
    .prepare(
      `UPDATE docs_assets SET status = 'ready', bytes = ?, upload_token_sha256 = NULL, updated_at = ?
       WHERE asset_id = ? AND status = 'pending_upload' AND upload_token_sha256 = ?`,
    )
    .run(bytes, updatedAt, assetId, tokenSha256);
  return result.changes === 1;
}

/** Pending videos whose upload URL expired by `now` (ISO time). */
export function expiredPendingVideoIds(db: Db, now: string): string[] {
  return db
    .prepare(`SELECT asset_id FROM docs_assets WHERE kind = 'video' AND status = 'pending_upload' AND upload_expires_at <= ?`)
    .pluck()
    .all(now) as string[];
}

/** Removes an asset still pending (never a ready one); whether it did. */
export function deletePendingAsset(db: Db, assetId: string): boolean {
  return db.prepare(`DELETE FROM docs_assets WHERE asset_id = ? AND status = 'pending_upload'`).run(assetId).changes === 1;
}

/** Ready videos whose bytes are a file, not a blob. */
export function videoIdsOnDisk(db: Db): string[] {
  return db.prepare(`SELECT asset_id FROM docs_assets WHERE kind = 'video' AND status = 'ready' AND data IS NULL`).pluck().all() as string[];
}
