/**
 * The library part of the error catalogue (contract/errors.ts): a code per situation.
 *
 * Also answered on library routes, from commonErrors: SVC_ERR_VALIDATION (the schema, and the
 * checks made in code on the same request fields: tags, payload file entries `{path,
 * content_utf8, sha256}`, a proposal's changeset shape), SVC_ERR_AUTH_MISSING (no team
 * certificate) and SVC_ERR_SCOPE_MISSING (the certificate lacks the route's scope).
 */
import { defineErrors } from '../error-catalogue.ts';

export const libraryErrors = defineErrors({
  SVC_ERR_MANIFEST_INVALID: {
    status: 422,
    summary:
      "A profile.yaml or blueprint.yaml in the files is missing or invalid (its YAML, its fields, or a blueprint's profiles/ layout); detail lists each problem as {loc, msg, type}",
  },

  SVC_ERR_BLUEPRINT_NOT_FOUND: { status: 404, summary: 'No blueprint has this ref' },
  SVC_ERR_BLUEPRINT_VERSION_NOT_FOUND: { status: 404, summary: 'The blueprint has no such version' },
  SVC_ERR_BLUEPRINT_PROFILE_NOT_FOUND: { status: 404, summary: 'The blueprint version has no profile with this ref' },
  SVC_ERR_BLUEPRINT_OWNED_BY_OTHER_TEAM: { status: 403, summary: 'The blueprint is owned by another team, so this team cannot publish, tag or delete it' },
  SVC_ERR_BLUEPRINT_EXISTS: { status: 409, summary: 'A blueprint with this ref already exists; publish into it with target_blueprint_ref instead' },
  SVC_ERR_BLUEPRINT_VERSION_EXISTS: {
    status: 409,
    summary: 'The blueprint version is already published with different content; versions are immutable, so publish a new version',
  },
  SVC_ERR_BLUEPRINT_VERSION_UNCHANGED: {
    status: 409,
    summary: 'The blueprint version already holds exactly this content; publishing it again would change nothing',
  },
  SVC_ERR_BLUEPRINT_VERSION_NOT_NEWER: { status: 422, summary: 'The blueprint version is not newer than its latest published version' },
  SVC_ERR_PUBLISH_TARGET_AMBIGUOUS: { status: 422, summary: 'A publish names neither or both of target_blueprint_ref and new_blueprint; it takes exactly one' },

  SVC_ERR_PROFILE_NOT_FOUND: { status: 404, summary: "No profile with this ref is on the team's shelf" },
  SVC_ERR_PROFILE_VERSION_NOT_FOUND: { status: 404, summary: 'The shelf profile has no such version' },
  SVC_ERR_PROFILE_EXISTS: { status: 409, summary: "A profile with this ref is already on the team's shelf" },
  SVC_ERR_PROFILE_VERSION_EXISTS: { status: 409, summary: 'The profile already has this version; versions are immutable, so give a new one' },
  SVC_ERR_PROFILE_VERSION_NOT_NEWER: { status: 422, summary: 'The profile version is not newer than its latest version' },
  SVC_ERR_PROFILE_ID_MISMATCH: { status: 422, summary: "The files' profile.yaml id is not the profile_ref the request names" },
  SVC_ERR_PROFILE_NO_SOURCE: { status: 409, summary: 'The profile has no source blueprint to update from (it was created on the shelf or detached)' },
  SVC_ERR_PROFILE_DIGEST_MISMATCH: { status: 409, summary: 'The profile_digest given is not the digest of the profile version it names' },

  SVC_ERR_BINDING_NOT_FOUND: { status: 404, summary: 'The agent has no profile binding' },
  SVC_ERR_MATERIALIZE_SOURCE_MISSING: { status: 422, summary: 'A materialize request names neither an agent_id nor a profile_ref' },

  SVC_ERR_PROPOSAL_NOT_FOUND: { status: 404, summary: 'No proposal has this id in the team' },
  SVC_ERR_PROPOSAL_DECIDED: { status: 409, summary: 'The proposal was already approved or rejected' },
  SVC_ERR_PROPOSAL_CHANGES_COLLIDE: {
    status: 409,
    summary: "The proposal's changes cannot all hold at once (a path changed twice, a file profile.yaml needs deleted)",
  },
  SVC_ERR_PROPOSAL_BASE_STALE: {
    status: 409,
    summary: "A changed asset's base is not the current version's (changed since, missing, or not given for an existing file)",
  },
  SVC_ERR_PROPOSAL_ID_OR_VERSION_CHANGED: { status: 422, summary: "The proposal would change profile.yaml's id or version, which only approval sets" },
  SVC_ERR_PROPOSAL_RECHECK_REJECTED: {
    status: 409,
    summary: 'Approval found the proposal no longer applies to the current version, so it was rejected and nothing was minted',
  },
});
