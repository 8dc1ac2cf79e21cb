import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_ASSET_BYTES } from '../domain/caps.ts';
import { findBillingCaps, saveBillingCaps, toCaps } from './store.ts';
import { useStoreDatabase } from '../../../../test/support/store-database.ts';

const db = useStoreDatabase();

describe('the billing caps store', () => {
  it('has none until the owner sets them, then the caps as saved', () => {
    expect(findBillingCaps(db())).toBeUndefined();
    saveBillingCaps(db(), { max_documents: 3, max_versions_per_doc: null, max_asset_bytes: 1024 });
    expect(findBillingCaps(db())).toEqual({ max_documents: 3, max_versions_per_doc: null, max_asset_bytes: 1024 });
    saveBillingCaps(db(), { max_documents: null, max_versions_per_doc: 10, max_asset_bytes: 2048 });
    expect(findBillingCaps(db())).toEqual({ max_documents: null, max_versions_per_doc: 10, max_asset_bytes: 2048 });
  });

  it('reads a setting written before the storage quota existed with the default quota', () => {
    expect(toCaps('{"max_documents":5,"max_versions_per_doc":null}')).toEqual({
      max_documents: 5,
      max_versions_per_doc: null,
      max_asset_bytes: DEFAULT_MAX_ASSET_BYTES,
    });
    expect(toCaps('{}')).toEqual({ max_documents: null, max_versions_per_doc: null, max_asset_bytes: DEFAULT_MAX_ASSET_BYTES });
  });
});
