/**
 * A YAML file of the library (profile.yaml, blueprint.yaml) read as a mapping of fields, or
 * refused in plain words that name the file and the line the problem is on: the first line of the
 * `yaml` package's message, never its multi-line frame. The caller says which error it throws, so each file's
 * refusal keeps its own name.
 */
import { isMap, parseDocument } from 'yaml';

export type YamlDocument = ReturnType<typeof parseDocument>;

/** `text` as a mapping; `fields` names a few of the file's fields for the refusal ("id: …, version: …"). */
export function yamlMapping(text: string, file: string, fields: string, refuse: (message: string) => Error): YamlDocument {
  const document = parseDocument(text, { prettyErrors: false });
  const error = document.errors[0];
  if (error !== undefined) {
    // Counted from the error's offset: without pretty errors the package leaves its line unset.
    const line = text.slice(0, error.pos[0]).split('\n').length;
    throw refuse(`${file} does not parse (line ${line}): ${error.message.split('\n')[0]}`);
  }
  if (!isMap(document.contents)) throw refuse(`${file} must be a mapping of fields (${fields}).`);
  return document;
}
