/**
 * Asset ids, as upstream mints them: lower-case UUIDs, unique across teams, used as public URL
 * segments and as file names (assets/asset-files.ts); anything else names no asset and no file.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isAssetId = (value: string): boolean => UUID.test(value);
