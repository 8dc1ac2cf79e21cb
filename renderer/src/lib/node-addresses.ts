/**
 * Settings' "Addresses": where agents on this computer reach the node. The core (mail, chat,
 * identities, MCP), the library and the documents usually answer on one listener, so one URL
 * says so once, with what it serves; when they differ, each says what it is for. Pure; tested in
 * node-addresses.test.ts.
 */
import type { NodeInfo } from '../api/owner.ts';

export interface NodeAddress {
  label: string;
  url: string;
  /** What answers there, in words. */
  serves: string;
}

const SERVES = {
  core: 'Mail, chat, identities and MCP (/mcp)',
  library: 'The library: blueprints, the shelf, proposals',
  docs: 'Documents, templates and present links',
} as const;

export function nodeAddresses(info: Pick<NodeInfo, 'core_url' | 'library_url' | 'docs_url'>): NodeAddress[] {
  if (info.core_url === info.library_url && info.core_url === info.docs_url) {
    return [{ label: 'This node', url: info.core_url, serves: 'Mail, chat, identities, MCP (/mcp), the library and documents: one address for all' }];
  }
  return [
    { label: 'Core', url: info.core_url, serves: SERVES.core },
    { label: 'Library', url: info.library_url, serves: SERVES.library },
    { label: 'Documents', url: info.docs_url, serves: SERVES.docs },
  ];
}
