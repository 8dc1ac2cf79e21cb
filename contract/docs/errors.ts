/**
 * The docs part of the error catalogue (contract/errors.ts): a code per situation. Refusals the
 * HTTP edge and auth make (schema validation, missing certificate or scope, wrong content type,
 * bad encoding) use the common codes.
 */
import { defineErrors } from '../error-catalogue.ts';

export const docsErrors = defineErrors({
  // Documents and their versions
  SVC_ERR_DOCUMENT_NOT_FOUND: { status: 404, summary: 'No document of the team has this slug' },
  SVC_ERR_DOCUMENT_VERSION_NOT_FOUND: { status: 404, summary: 'The document has no version with this number' },
  SVC_ERR_DOCUMENT_SLUG_TAKEN: { status: 409, summary: 'The team already has a document with this slug' },
  SVC_ERR_DOCUMENT_VERSION_STALE: {
    status: 409,
    summary: 'The document changed since the base version of the save; detail carries the latest version_number and body, and nothing was saved',
  },
  SVC_ERR_DOCUMENT_TOO_COMPLEX: {
    status: 422,
    summary: "The document cannot be rendered: too complex for the renderer's time or memory budget, or the renderer failed on it",
  },
  SVC_ERR_FREE_TIER_LIMIT: {
    status: 402,
    summary: "The free tier's cap on documents per team or versions per document is reached; detail is {code, limit, current, max, ..., message}",
  },

  // Templates, themes, acting as an identity
  SVC_ERR_TEMPLATE_NOT_FOUND: { status: 404, summary: 'No built-in template has this name' },
  SVC_ERR_THEME_CONTRAST_INSUFFICIENT: { status: 422, summary: 'A theme colour pair is below WCAG AA contrast (4.5:1) or not opaque enough to check' },
  SVC_ERR_ACTING_AS_INACTIVE: { status: 422, summary: 'acting_as names an identity that is archived or replaced; only an active identity can act' },

  // Present links
  SVC_ERR_PRESENT_LINK_NOT_FOUND: {
    status: 404,
    summary: "No valid present link answers to this token or id: unknown, revoked, expired, another team's, or read-only where editing was asked",
  },

  // Assets and video uploads
  SVC_ERR_ASSET_NOT_FOUND: { status: 404, summary: "No asset has this id (or not one of the team's)" },
  SVC_ERR_ASSET_TOO_LARGE: { status: 413, summary: 'An image or video is over its size cap (256 KiB for an image, 200 MiB for a video); nothing was stored' },
  SVC_ERR_IMAGE_BASE64_INVALID: { status: 400, summary: "An image's data is not strict standard base64 (with padding), or is empty" },
  SVC_ERR_IMAGE_TYPE_NOT_ALLOWED: { status: 422, summary: "The image's content type is not one of png, jpeg, gif or webp" },
  SVC_ERR_ASSET_BYTES_MISMATCH: { status: 422, summary: "An asset's bytes are not of the content type it declared" },
  SVC_ERR_STORAGE_QUOTA_EXCEEDED: {
    status: 402,
    summary: "The team's assets would pass its storage quota; detail is {code, limit, current, max, requested, ..., message}, and nothing was stored",
  },
  SVC_ERR_UPLOAD_NOT_PENDING: { status: 404, summary: 'No pending video upload answers to this URL (unknown, or already used)' },
  SVC_ERR_UPLOAD_URL_EXPIRED: { status: 410, summary: 'The video upload URL expired; request a new one' },
  SVC_ERR_UPLOAD_IN_PROGRESS: { status: 409, summary: 'An upload to this URL is already in progress' },
  SVC_ERR_UPLOAD_INTERRUPTED: {
    status: 400,
    summary: "The upload ended before all its bytes arrived (broken, stalled or past its URL's expiry); nothing was stored",
  },
  SVC_ERR_UPLOAD_EMPTY: { status: 400, summary: 'The upload has no bytes' },
  SVC_ERR_UPLOAD_STORAGE_FAILED: { status: 503, summary: 'The node could not write the upload (its disk is full, say); nothing was stored' },

  // The document renderer
  SVC_ERR_RENDERER_BUSY: { status: 503, summary: "The document renderer's queue is full; Retry-After says when to try again" },
  SVC_ERR_RENDERER_UNAVAILABLE: { status: 503, summary: 'The document renderer could not be loaded or started, or stopped' },
});
