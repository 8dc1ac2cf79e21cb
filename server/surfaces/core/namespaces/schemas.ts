/**
 * The namespace wire schemas are the contract's (contract/core/namespaces.ts); these re-exports
 * keep the imports of other modules (teams, federation addresses) working until they take them
 * from there.
 */
export { ADDRESS_NAME, addressName } from '../../../../contract/core/namespaces.ts';
