import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  deletePendingAsset,
  expiredPendingVideoIds,
  findAsset,
  findReadyContent,
  insertImage,
  insertPendingVideo,
  markVideoReady,
  readyImageIds,
  storedAssetBytes,
  toAsset,
  videoIdsOnDisk,
  type NewPendingVideoRow,
} from './store.ts';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';

const db = useStoreDatabase();
const CREATED = '2026-01-01T00:00:00.000Z';
const EXPIRES = '2026-01-01T01:00:00.000Z';
const url = (id: string): string => `https://docs.example/assets/${id}`;

function pendingVideo(team: string, expiresAt = EXPIRES): NewPendingVideoRow {
  return {
    asset_id: randomUUID(),
    team_id: team,
    content_type: 'video/mp4',
    filename: 'demo.mp4',
    max_duration_seconds: 600,
    upload_token_sha256: randomUUID(),
    upload_expires_at: expiresAt,
    created_at: CREATED,
  };
}

describe('the assets store', () => {
  it('stores an image ready, with its bytes, and shows it without the upload fields', () => {
    const team = 'images:example.com';
    const assetId = randomUUID();
    insertImage(db(), { asset_id: assetId, team_id: team, content_type: 'image/png', data: Buffer.from('png bytes'), created_at: CREATED });
    const row = findAsset(db(), assetId)!;
    expect(toAsset(row, url(assetId), Date.parse(CREATED))).toEqual({
      asset_id: assetId,
      kind: 'image',
      url: url(assetId),
      content_type: 'image/png',
      bytes: 9,
      status: 'ready',
      created_at: CREATED,
    });
    expect(findReadyContent(db(), assetId)).toEqual({ content_type: 'image/png', data: Buffer.from('png bytes') });
    expect(readyImageIds(db(), team)).toEqual([assetId]);
    expect(readyImageIds(db(), 'other:example.com')).toEqual([]);
  });

  it('keeps a video pending until its token is spent, and only the matching token spends it', () => {
    const team = 'videos:example.com';
    const video = pendingVideo(team);
    insertPendingVideo(db(), video);
    const pending = findAsset(db(), video.asset_id)!;
    expect(pending).toMatchObject({ status: 'pending_upload', bytes: null, upload_token_sha256: video.upload_token_sha256 });
    expect(toAsset(pending, 'u', Date.parse(CREATED))).toMatchObject({
      status: 'pending_upload',
      filename: 'demo.mp4',
      max_duration_seconds: 600,
      upload_expires_at: EXPIRES,
    });
    // A pending video whose URL expired reads as an error.
    expect(toAsset(pending, 'u', Date.parse(EXPIRES)).status).toBe('error');
    expect(findReadyContent(db(), video.asset_id)).toBeUndefined();
    expect(storedAssetBytes(db(), team)).toBe(0);

    expect(markVideoReady(db(), video.asset_id, 'not the token', 10, CREATED)).toBe(false);
    expect(markVideoReady(db(), video.asset_id, video.upload_token_sha256, 1234, CREATED)).toBe(true);
    expect(markVideoReady(db(), video.asset_id, video.upload_token_sha256, 1234, CREATED)).toBe(false);
    const ready = findAsset(db(), video.asset_id)!;
    expect(ready).toMatchObject({ status: 'ready', bytes: 1234, upload_token_sha256: null });
    expect(toAsset(ready, 'u', Date.parse(EXPIRES))).toMatchObject({ status: 'ready', upload_expires_at: null });
    expect(findReadyContent(db(), video.asset_id)).toEqual({ content_type: 'video/mp4', data: null });
    expect(videoIdsOnDisk(db())).toContain(video.asset_id);
    expect(readyImageIds(db(), team)).toEqual([]);
    expect(storedAssetBytes(db(), team)).toBe(1234);
  });

  it('finds expired pending videos and deletes only pending rows', () => {
    const team = 'sweep:example.com';
    const expired = pendingVideo(team, '2026-01-01T00:10:00.000Z');
    const live = pendingVideo(team, '2026-01-01T02:00:00.000Z');
    const used = pendingVideo(team, '2026-01-01T00:10:00.000Z');
    for (const video of [expired, live, used]) insertPendingVideo(db(), video);
    markVideoReady(db(), used.asset_id, used.upload_token_sha256, 5, CREATED);
    const found = expiredPendingVideoIds(db(), '2026-01-01T01:00:00.000Z');
    expect(found).toContain(expired.asset_id);
    expect(found).not.toContain(live.asset_id);
    expect(found).not.toContain(used.asset_id);
    expect(deletePendingAsset(db(), expired.asset_id)).toBe(true);
    expect(deletePendingAsset(db(), expired.asset_id)).toBe(false);
    expect(deletePendingAsset(db(), used.asset_id)).toBe(false);
    expect(findAsset(db(), expired.asset_id)).toBeUndefined();
    expect(findAsset(db(), used.asset_id)).toBeDefined();
  });
});
