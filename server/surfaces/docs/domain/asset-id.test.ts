import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isAssetId } from './asset-id.ts';

describe('isAssetId', () => {
  it('takes a lower-case UUID', () => {
    expect(isAssetId(randomUUID())).toBe(true);
  });

  it('refuses upper case, partial files, paths and other text', () => {
    const id = randomUUID();
    for (const value of [id.toUpperCase(), `${id}.part`, `../${id}`, `${id}\n`, '', 'logo.png']) expect(isAssetId(value)).toBe(false);
  });
});
