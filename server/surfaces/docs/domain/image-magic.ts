/**
 * What an upload's first bytes say it is, checked as upstream checks images: png, jpeg, gif
 * (87a/89a) and webp (RIFF....WEBP). SVG is never an image here (it can carry script). Video
 * containers get a lighter check: an ISO BMFF box (mp4, quicktime) or the EBML header (webm).
 */
import { IMAGE_TYPES, VIDEO_TYPES, type ImageType, type VideoType } from '../../../../contract/docs/rules.ts';

export { IMAGE_TYPES, VIDEO_TYPES, type ImageType, type VideoType };

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const EBML = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
const BMFF_BOXES = new Set(['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  return prefix.every((value, i) => bytes[at + i] === value);
}

function ascii(bytes: Uint8Array, from: number, to: number): string {
  return bytes.length < to ? '' : Buffer.from(bytes.subarray(from, to)).toString('latin1');
}

/** The image type the bytes begin with, or null (SVG and everything else). */
export function sniffImage(bytes: Uint8Array): ImageType | null {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  const gif = ascii(bytes, 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'image/gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

export function isImageType(value: string): value is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(value);
}

/** Whether the bytes plausibly start the declared video container. */
export function looksLikeVideo(bytes: Uint8Array, type: VideoType): boolean {
  if (type === 'video/webm') return startsWith(bytes, EBML);
  return BMFF_BOXES.has(ascii(bytes, 4, 8));
}
