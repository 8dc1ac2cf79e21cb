/**
 * Document templates in the editor: the form a template's slots are typed into, and the `slots`
 * object the node receives (POST /v1/documents with `template`). The node's rules are the
 * contract's slot schemas (contract/docs/templates.ts, zod: the UI reads the limits from
 * GET /v1/templates instead of bundling them): strings are trimmed, `cover.title`, a section's
 * `heading` and a metric's `label` and `value` must not be empty, and unknown keys are refused,
 * so empty optional strings and empty lists are left out here.
 * Pure; tested in templates.test.ts.
 */
import type { SlotName, TemplateLimits } from '../api/docs.ts';
import { plural } from './format.ts';

export interface CoverForm {
  title: string;
  subtitle: string;
  eyebrow: string;
}

export interface SectionForm {
  heading: string;
  body: string;
}

export interface MetricForm {
  label: string;
  value: string;
  caption: string;
}

export interface AskForm {
  headline: string;
  body: string;
  /** One item per line, as typed. */
  items: string;
}

/** Everything the slot form shows; only the template's own slots are sent. */
export interface SlotForm {
  cover: CoverForm;
  sections: SectionForm[];
  metrics: MetricForm[];
  ask: AskForm;
}

export function emptySection(): SectionForm {
  return { heading: '', body: '' };
}

export function emptyMetric(): MetricForm {
  return { label: '', value: '', caption: '' };
}

export function emptySlotForm(): SlotForm {
  return { cover: { title: '', subtitle: '', eyebrow: '' }, sections: [], metrics: [], ask: { headline: '', body: '', items: '' } };
}

/** The items of a one-per-line text: trimmed, empty lines dropped. */
export function itemLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** `fields` with each value trimmed; the `optional` ones left out when empty. */
function pick<K extends string>(fields: Record<K, string>, optional: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of Object.keys(fields) as K[]) {
    const value = fields[key].trim();
    if (value === '' && optional.includes(key)) continue;
    out[key] = value;
  }
  return out;
}

/**
 * The `slots` object for a template with these slots. Strings are trimmed; empty optional strings,
 * rows left wholly blank and empty lists are left out (a required field left empty in a row that
 * has something else stays, as '', so that slotsProblem can name it). The cover is always sent.
 */
export function slotsFromForm(form: SlotForm, slots: readonly SlotName[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (slots.includes('cover')) out.cover = pick(form.cover, ['subtitle', 'eyebrow']);
  if (slots.includes('metrics')) {
    const metrics = form.metrics.filter((m) => `${m.label}${m.value}${m.caption}`.trim() !== '').map((m) => pick(m, ['caption']));
    if (metrics.length > 0) out.metrics = metrics;
  }
  if (slots.includes('sections')) {
    const sections = form.sections.filter((s) => `${s.heading}${s.body}`.trim() !== '').map((s) => pick(s, ['body']));
    if (sections.length > 0) out.sections = sections;
  }
  if (slots.includes('ask')) {
    const ask: Record<string, unknown> = pick({ headline: form.ask.headline, body: form.ask.body }, ['headline', 'body']);
    const items = itemLines(form.ask.items);
    if (items.length > 0) ask.items = items;
    if (Object.keys(ask).length > 0) out.ask = ask;
  }
  return out;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function rows(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.map(record) : [];
}

/** The form for a `slots` object (the inverse of slotsFromForm); anything unexpected is ignored. */
export function slotFormFromSlots(slots: Record<string, unknown>): SlotForm {
  const cover = record(slots.cover);
  const ask = record(slots.ask);
  const items = Array.isArray(ask.items) ? ask.items.filter((item): item is string => typeof item === 'string') : [];
  return {
    cover: { title: text(cover.title), subtitle: text(cover.subtitle), eyebrow: text(cover.eyebrow) },
    sections: rows(slots.sections).map((s) => ({ heading: text(s.heading), body: text(s.body) })),
    metrics: rows(slots.metrics).map((m) => ({ label: text(m.label), value: text(m.value), caption: text(m.caption) })),
    ask: { headline: text(ask.headline), body: text(ask.body), items: items.join('\n') },
  };
}

/**
 * What the node would refuse in a `slots` object made by slotsFromForm, in words (the first
 * problem), or null. `limits` are the node's (GET /v1/templates). Lengths of single fields are
 * kept by the form's `maxlength`; the ask's items (one textarea) are checked here.
 */
export function slotsProblem(slots: Record<string, unknown>, limits: TemplateLimits): string | null {
  const cover = record(slots.cover);
  if (text(cover.title).trim() === '') return 'Give the cover a title.';
  const sections = rows(slots.sections);
  if (sections.length > limits.sections) return `At most ${plural(limits.sections, 'section')}.`;
  for (const [i, section] of sections.entries()) {
    if (text(section.heading).trim() === '') return `Section ${i + 1} needs a heading.`;
  }
  const metrics = rows(slots.metrics);
  if (metrics.length > limits.metrics) return `At most ${plural(limits.metrics, 'metric')}.`;
  for (const [i, metric] of metrics.entries()) {
    if (text(metric.label).trim() === '') return `Metric ${i + 1} needs a label.`;
    if (text(metric.value).trim() === '') return `Metric ${i + 1} needs a value.`;
  }
  const items = record(slots.ask).items;
  if (Array.isArray(items)) {
    if (items.length > limits.items) return `At most ${plural(limits.items, 'item')} in the ask (one per line).`;
    const long = items.findIndex((item) => text(item).length > limits.item);
    if (long >= 0) return `Item ${long + 1} of the ask is longer than ${plural(limits.item, 'character')}.`;
  }
  return null;
}
