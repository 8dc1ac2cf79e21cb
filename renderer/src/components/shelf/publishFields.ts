/**
 * The Publish form's fields, and which of them a refusal by the node is about, so the dialog
 * shows the node's words once, next to that field (a taken id under the id), and only what
 * concerns no one field at the foot of the form.
 */
import { ApiError, issueSentence } from '../../api/errors.ts';

export type PublishField = 'name' | 'ref' | 'tags' | 'version' | 'target' | 'profileVersion';

/** Each field's input, in the order the form shows them: the keyboard goes to the first with a problem. */
export const PUBLISH_INPUTS: Readonly<Record<PublishField, string>> = {
  name: 'publish-name',
  ref: 'publish-ref',
  tags: 'publish-tags',
  target: 'publish-target',
  version: 'publish-version',
  profileVersion: 'publish-profile-version',
};

/** The request's wire fields (a 422's issue names them), as the form's. */
const WIRE: Readonly<Record<string, PublishField>> = {
  'new_blueprint.name': 'name',
  'new_blueprint.blueprint_ref': 'ref',
  'new_blueprint.tags': 'tags',
  target_blueprint_ref: 'target',
  blueprint_version: 'version',
  profile_version: 'profileVersion',
};

/** A refusal, placed: the field it is about (null: the request as a whole) and its words. */
export interface PlacedRefusal {
  field: PublishField | null;
  message: string;
}

/** Where the node's refusal of a publish belongs in the form. */
export function placeRefusal(error: unknown): PlacedRefusal {
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiError)) return { field: null, message };
  if (error.code === 'SVC_ERR_BLUEPRINT_EXISTS') return { field: 'ref', message };
  if (error.code === 'SVC_ERR_BLUEPRINT_NOT_FOUND') return { field: 'target', message };
  const first = error.issues[0];
  if (error.issues.length === 1 && first !== undefined && first.field !== null) {
    // A tag's issue names its place in the list (`new_blueprint.tags.2`).
    const field = WIRE[first.field] ?? WIRE[first.field.replace(/\.\d+$/, '')];
    // Under its field the words need no label.
    if (field !== undefined) return { field, message: issueSentence({ field: null, message: first.message }) };
  }
  return { field: null, message };
}
