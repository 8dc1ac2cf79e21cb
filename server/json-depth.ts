/**
 * The deepest nesting of arrays and objects the node takes in any JSON or YAML value (a request
 * body, a profile.yaml, a changeset value). Every walker of such values (validation, canonical
 * JSON, YAML) recurses, and a few thousand levels overflow the stack; no honest payload comes close.
 */
export const MAX_JSON_DEPTH = 64;
