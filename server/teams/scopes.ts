/**
 * Team scopes (DESIGN §4), in one place: which scopes exist, what each grants, what a member gets
 * by default, and the one scope each team-authenticated library route needs. The certificate
 * format stays upstream's; the node records the scopes per certificate_id (team_certificates.scopes).
 *
 * The document surface checks its two scopes per route (surfaces/docs/routes/options.ts); the
 * library surface looks its routes up in LIBRARY_ROUTE_SCOPES (surfaces/library/route-scopes.ts)
 * and refuses to start with a route the table does not name, so no route is ever left unscoped.
 */
import type { AppEventType } from '../events/app-events.ts';
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
 * Every team-authenticated library route (`METHOD /pattern` as Fastify registers it) and the one
 * scope it needs. The three public catalog reads are not here: they need no certificate at all.
 */
export const LIBRARY_ROUTE_SCOPES: Readonly<Record<string, TeamScope>> = {
  'POST /v1/team/register': 'team:admin',

  'GET /v1/shelf': 'library:read',
  'GET /v1/profiles/:profile_ref': 'library:read',
  'GET /v1/profiles/:profile_ref/versions': 'library:read',
  'GET /v1/proposals': 'library:read',
  'GET /v1/proposals/:proposal_id': 'library:read',
  'GET /v1/agents/:agent_id/profile-binding': 'library:read',
  'GET /v1/profile-bindings': 'library:read',
  // A POST that only computes the home files; it writes nothing.
  'POST /v1/materialize': 'library:read',

  'POST /v1/shelf/import': 'library:write',
  'POST /v1/profiles': 'library:write',
  'POST /v1/profiles/:profile_ref/versions': 'library:write',
  'POST /v1/profiles/:profile_ref/update-from-source': 'library:write',
  'PUT /v1/profiles/:profile_ref/tags': 'library:write',
  'DELETE /v1/profiles/:profile_ref': 'library:write',
  'POST /v1/proposals': 'library:write',
  'POST /v1/agents/:agent_id/profile-binding': 'library:write',

  'POST /v1/blueprints/import': 'library:publish',
  'POST /v1/profiles/:profile_ref/publish': 'library:publish',
  'PUT /v1/blueprints/:blueprint_ref/tags': 'library:publish',
  'DELETE /v1/blueprints/:blueprint_ref': 'library:publish',

  'POST /v1/proposals/:proposal_id/approve': 'library:approve',
  'POST /v1/proposals/:proposal_id/reject': 'library:approve',
};

/** The scope a library route needs; HEAD is a GET without the body. Undefined: not in the table. */
export function libraryRouteScope(method: string, pattern: string): TeamScope | undefined {
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  return Object.hasOwn(LIBRARY_ROUTE_SCOPES, `${verb} ${pattern}`) ? LIBRARY_ROUTE_SCOPES[`${verb} ${pattern}`] : undefined;
}

/**
 * The scope an identity's certificate must hold to subscribe to an app event type and, checked
 * again at every delivery, to receive one (events/app-events.ts).
 */
export const APP_EVENT_SCOPES: Readonly<Record<AppEventType, TeamScope>> = {
  'docs/doc.changed': 'docs:read',
};

/** Every scope, what it grants and whether members get it by default: for listings. */
export function describeScopes(): ScopeDescription[] {
  return TEAM_SCOPES.map((scope) => ({ scope, grants: SCOPE_GRANTS[scope], default: DEFAULT_MEMBER_SCOPES.includes(scope) }));
}
