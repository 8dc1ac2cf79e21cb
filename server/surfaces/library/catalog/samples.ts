/**
 * The sample blueprints shipped with the node (blueprint-samples/: a code reviewer, a release
 * captain, a docs editor), published into the public catalog when the node starts, so that a fresh
 * node's Shelf has something to import before anyone has published anything.
 *
 * They belong to a publisher of their own, `svc-node`: no team can have that id (team ids are
 * `name:domain`), so no team can publish over a sample or retag it, and a sample never replaces a
 * team's blueprint. Each start publishes only what is missing: a sample whose ref a team already
 * owns is left alone (the team's blueprint stays as it is), and one already published at the
 * shipped version or newer is not touched again, so restarts change nothing. A newer node with a
 * newer version of a sample adds that version; shelf copies then see an update, as for any
 * blueprint.
 *
 * The Electron build bundles this module into out/main/, so that build copies blueprint-samples/
 * next to it (electron.vite.config.ts), as it does the migrations.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TagSet } from '../../../../contract/library/common.ts';
import { compareVersions } from '../../../../contract/library-rules.ts';
import type { BlueprintCatalog } from './service.ts';
import { readBlueprintPayload } from '../domain/blueprint-yaml.ts';
import { checkPayloadFiles, type PayloadFile } from '../domain/payload.ts';
import type { TeamRegistrations } from '../shelf/registrations.ts';

/** The samples' publisher in the catalog: an id no team can have. */
export const SAMPLES_PUBLISHER = 'svc-node';
export const SAMPLES_DISPLAY_NAME = 'svc-node samples';

/** Where the samples are: beside this module, or beside the bundle that holds it. */
export const SAMPLES_DIR = fileURLToPath(new URL('./blueprint-samples/', import.meta.url));
/** The list of samples and their catalog tags, in the order they are published (the catalog lists the newest first). */
const SAMPLES_INDEX = 'samples.json';

interface SampleEntry {
  dir: string;
  tags: string[];
}

export interface SampleOutcome {
  blueprint_ref: string;
  version: string;
  /** published: added now; current: this version or a newer one is there; taken: a team owns the ref. */
  outcome: 'published' | 'current' | 'taken';
}

function readIndex(dir: string): SampleEntry[] {
  const parsed = JSON.parse(readFileSync(join(dir, SAMPLES_INDEX), 'utf8')) as unknown;
  if (!Array.isArray(parsed)) throw new Error(`${SAMPLES_INDEX} must list the samples`);
  return parsed.map((entry: unknown, index) => {
    const { dir: name, tags } = (entry ?? {}) as { dir?: unknown; tags?: unknown };
    if (typeof name !== 'string' || !Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
      throw new Error(`${SAMPLES_INDEX}[${index}] must be {"dir": string, "tags": string[]}`);
    }
    return { dir: name, tags };
  });
}

/** Every file under `root`, with paths relative to it, as an import payload would carry them. */
function payloadOf(root: string): PayloadFile[] {
  const files = readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return {
        path: path
          .slice(root.length + 1)
          .split('\\')
          .join('/'),
        content_utf8: readFileSync(path, 'utf8'),
      };
    });
  return checkPayloadFiles(files, [root]);
}

/** A sample's tags as the catalog keeps them, read by the rule every request's tags are read by. */
function tagsOf(entry: SampleEntry): string[] {
  const read = TagSet.safeParse(entry.tags);
  if (read.success) return read.data;
  const problems = read.error.issues.map((issue) => `${['tags', ...issue.path].join('.')}: ${issue.message}`);
  throw new Error(`${SAMPLES_INDEX}: the sample ${entry.dir} has tags the catalog refuses (${problems.join('; ')})`);
}

/** The shipped samples, each as its import payload and tags. */
export function readSamples(dir: string = SAMPLES_DIR): { files: PayloadFile[]; tags: string[] }[] {
  return readIndex(dir).map((entry) => ({ files: payloadOf(join(dir, entry.dir)), tags: tagsOf(entry) }));
}

/**
 * Publishes each shipped sample the catalog lacks (see the module comment). A node without the
 * samples folder (a build that did not copy it) starts without them rather than not at all.
 */
export function seedSampleBlueprints(catalog: BlueprintCatalog, registrations: TeamRegistrations, dir: string = SAMPLES_DIR): SampleOutcome[] {
  if (!existsSync(join(dir, SAMPLES_INDEX))) return [];
  const outcomes: SampleOutcome[] = [];
  for (const sample of readSamples(dir)) {
    const { manifest } = readBlueprintPayload(sample.files);
    const ref = manifest.blueprint_ref;
    const latest = catalog.latest(ref);
    let outcome: SampleOutcome['outcome'];
    if (latest !== null && latest.owner !== SAMPLES_PUBLISHER) outcome = 'taken';
    else if (latest !== null && compareVersions(manifest.version, latest.version) <= 0) outcome = 'current';
    else {
      if (latest === null) registrations.register(SAMPLES_PUBLISHER, { display_name: SAMPLES_DISPLAY_NAME });
      catalog.publish(SAMPLES_PUBLISHER, sample.files);
      catalog.setTags(SAMPLES_PUBLISHER, ref, sample.tags);
      outcome = 'published';
    }
    outcomes.push({ blueprint_ref: ref, version: manifest.version, outcome });
  }
  return outcomes;
}
