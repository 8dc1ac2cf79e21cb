import { describe, expect, it } from 'vitest';
import { looksLikeVideo, sniffImage } from './image-magic.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

describe('sniffImage', () => {
  it('knows png, jpeg, gif87a/89a and webp', () => {
    expect(sniffImage(bytes([0x89], 'PNG\r\n\x1a\n', [0, 0]))).toBe('image/png');
    expect(sniffImage(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(sniffImage(bytes('GIF87a', [1]))).toBe('image/gif');
    expect(sniffImage(bytes('GIF89a', [1]))).toBe('image/gif');
    expect(sniffImage(bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '))).toBe('image/webp');
  });

  it('never calls SVG, truncated headers or other RIFF files an image', () => {
    expect(sniffImage(bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBeNull();
    expect(sniffImage(bytes('<?xml version="1.0"?><svg/>'))).toBeNull();
    expect(sniffImage(bytes([0x89], 'PNG'))).toBeNull();
    expect(sniffImage(bytes([0xff, 0xd8]))).toBeNull();
    expect(sniffImage(bytes('GIF88a'))).toBeNull();
    expect(sniffImage(bytes('RIFF', [0, 0, 0, 0], 'WAVE'))).toBeNull();
    expect(sniffImage(Buffer.alloc(0))).toBeNull();
  });
});

describe('looksLikeVideo', () => {
  it('checks the container header', () => {
    expect(looksLikeVideo(bytes([0, 0, 0, 0x18], 'ftypmp42'), 'video/mp4')).toBe(true);
    expect(looksLikeVideo(bytes([0, 0, 0, 0x14], 'ftypqt  '), 'video/quicktime')).toBe(true);
    expect(looksLikeVideo(bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]), 'video/webm')).toBe(true);
    expect(looksLikeVideo(bytes([0x1a, 0x45, 0xdf, 0xa3]), 'video/mp4')).toBe(false);
    expect(looksLikeVideo(bytes('not a video at all'), 'video/webm')).toBe(false);
  });
});
