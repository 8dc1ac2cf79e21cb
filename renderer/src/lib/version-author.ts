/**
 * Who made a version, in words for the history: the identity the app acted as, the
 * agent (team member) that saved it, or the visitor who edited through a link, by the name they
 * typed; never "owner through a present link" for an anonymous visitor. Pure; unit tested.
 */
import type { DocumentVersion, VersionSource } from '../api/docs.ts';

export interface AuthorLine {
  /** The person or agent: "bob", "alice", "Zoë", "Someone with the link". */
  who: string;
  /** How: "saved", "from a template", "through an editable link". */
  how: string;
  /** The tooltip: address or what the name means. */
  hint: string;
}

const HOW: Record<VersionSource, string> = { api: 'saved', template: 'from a template', 'present-link': 'through an editable link' };

/** A version as a node reports it: a node from before versions named their author sends no `author`. */
export type ReportedVersion = Pick<DocumentVersion, 'source' | 'created_by_alias' | 'created_by_address' | 'created_by_editor_name'> &
  Partial<Pick<DocumentVersion, 'author'>>;

export function authorLine(version: ReportedVersion): AuthorLine {
  const how = HOW[version.source];
  // A node from before versions named their author sends no `author`: the certificate's fields, as
  // before.
  const author = version.author ?? {
    kind: version.source === 'present-link' ? ('link-editor' as const) : ('member' as const),
    name: version.source === 'present-link' ? version.created_by_editor_name : version.created_by_alias,
    address: version.source === 'present-link' ? null : version.created_by_address,
  };
  switch (author.kind) {
    case 'link-editor':
      return author.name === null
        ? { who: 'Someone with the link', how, hint: 'A visitor who gave no name, editing through an editable present link' }
        : { who: author.name, how, hint: `${author.name}: the name a visitor gave, editing through an editable present link` };
    case 'identity':
      return { who: author.name ?? 'an identity', how, hint: `Saved in this app as ${author.address ?? author.name ?? 'an identity'}` };
    default:
      return { who: author.name ?? 'a team member', how, hint: author.address ?? `Team member ${author.name ?? ''}`.trim() };
  }
}
