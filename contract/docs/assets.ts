/**
 * Assets (docs/adr/0006-library-and-document-surfaces.md): images sent as base64 in JSON, videos
 * through a one-time upload URL (the PUT of their raw bytes is not JSON), and what the node answers
 * about them. The bytes themselves are served publicly by id at `/assets/{asset_id}`.
 */
import { z } from 'zod';
import { IMAGE_TYPES, VIDEO_TYPES } from './rules.ts';

/** `POST /v1/assets`: strict standard base64 of a png, jpeg, gif or webp image of at most 256 KiB. */
export const ImageBody = z.strictObject({ content_type: z.string().max(100).describe(IMAGE_TYPES.join(', ')), data_base64: z.string() });

/** `POST /v1/assets/video/direct-upload`: a pending video and its one-time upload URL. */
export const VideoBody = z.strictObject({
  content_type: z.enum(VIDEO_TYPES),
  filename: z.string().min(1).max(255).optional(),
  max_duration_seconds: z.number().int().min(1).max(86_400).optional(),
});
export type VideoInput = z.output<typeof VideoBody>;

/** An asset id in the path; one that is not a lower-case UUID names no asset (404). */
export const AssetIdParams = z.object({ asset_id: z.string() });

/** The one-time upload URL's token; checked (404, 410) before the body is read. */
export const UploadQuery = z.object({ token: z.string() });

// ---------------------------------------------------------------------------------- responses

/** `error`: a video whose upload URL expired before its bytes arrived. */
export const AssetStatus = z.enum(['pending_upload', 'ready', 'error']);

/** An image, or a video with its upload's fields. */
export const Asset = z.object({
  asset_id: z.string(),
  kind: z.enum(['image', 'video']),
  url: z.string(),
  content_type: z.string(),
  /** Null for a video until its bytes arrived. */
  bytes: z.number().int().nullable(),
  status: AssetStatus,
  created_at: z.string(),
  filename: z.string().nullable().optional(),
  max_duration_seconds: z.number().int().nullable().optional(),
  upload_expires_at: z.string().nullable().optional(),
});
export type Asset = z.output<typeof Asset>;

/** A pending video: PUT its bytes to `upload_url` (once, before `upload_expires_at`). */
export const DirectUpload = z.object({
  asset_id: z.string(),
  kind: z.literal('video'),
  upload_url: z.string(),
  upload_expires_at: z.string(),
  status: z.literal('pending_upload'),
  content_type: z.enum(VIDEO_TYPES),
});
export type DirectUpload = z.output<typeof DirectUpload>;
