/**
 * Team scopes (DESIGN §4), in one place: which scopes exist, what each grants and what a member
 * gets by default. The certificate format stays upstream's; the node records the scopes per
 * certificate_id (team_certificates.scopes).
 *
 * Each team-authenticated route declares the one scope it needs in its config
 * (`config: teamRoute('library:read')`); server/http/route-scope.ts checks it, and a surface refuses
 * to start with a team route that declares none, so no route is ever left unscoped.
 */
import type { AppEventType } from '../../contract/core/events.ts';
import { TEAM_SCOPES, type ScopeDescription, type TeamScope } from '../../contract/node/teams.ts';

// The scopes themselves are the contract's (contract/node/teams.ts): certificates are issued with them over the owner API.
export { TEAM_SCOPES, type ScopeDescription, type TeamScope };

/** What each scope grants, as `svc-node team members` and the owner API present it. */
export const SCOPE_GRANTS: Readonly<Record<TeamScope, string>> = {
  'docs:read': 'read documents, versions, templates, billing, theme, assets and present links; receive docs/doc.changed',
  'docs:write': 'create and append documents, mint and revoke present links, change the theme, upload assets',
  'library:read': 'read the shelf, profiles, proposals and bindings; materialize',
  'library:write': 'change the shelf (create, version, tag, import, update from source, delete), submit proposals, bind agents',
  'library:publish': 'publish to the public catalog: import, publish a profile, tag and delete blueprints',
  'library:approve': 'approve or reject proposals (approval mints the next version)',
  'team:admin': "register the team's public owner and display name (POST /v1/team/register)",
};

/**
 * A member issued without --scope can work on documents and the shelf; publishing to the public
 * catalog, deciding proposals and speaking for the team are granted only when asked for.
 */
export const DEFAULT_MEMBER_SCOPES: readonly TeamScope[] = ['docs:read', 'docs:write', 'library:read', 'library:write'];

export function isTeamScope(value: string): value is TeamScope {
  return (TEAM_SCOPES as readonly string[]).includes(value);
}

/**
 * The scope an identity's certificate must hold to subscribe to an app event type and, checked
 * again at every delivery, to receive one (teams/app-events.ts).
 */
export const APP_EVENT_SCOPES: Readonly<Record<AppEventType, TeamScope>> = {
  'docs/doc.changed': 'docs:read',
};

/** Every scope, what it grants and whether members get it by default: for listings. */
export function describeScopes(): ScopeDescription[] {
  return TEAM_SCOPES.map((scope) => ({ scope, grants: SCOPE_GRANTS[scope], default: DEFAULT_MEMBER_SCOPES.includes(scope) }));
}
