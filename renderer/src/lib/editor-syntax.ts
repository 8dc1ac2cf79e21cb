/**
 * How the Markdown editor colours its syntax, in the app's own colour tokens (styles/tokens.css),
 * so the editor follows light and dark like everything else and every colour is one the contrast
 * test (editor-syntax.test.ts) checks at 4.5:1 on the editor's surface and on its highlighted
 * line, in both themes. CodeMirror's default style hard-codes colours made for a white page (its
 * grey for Markdown markers reads 1.69:1 on the dark surface) and underlines headings; headings
 * here are bold, never underlined. Pure data, read by MarkdownEditor.vue.
 */
import { tags, type Tag } from '@lezer/highlight';

/** A colour token of styles/tokens.css that text may be painted in. */
export type TextToken = '--text' | '--text-muted' | '--accent-text';

export interface SyntaxRule {
  tag: Tag | Tag[];
  /** The text colour, a token checked for contrast; unset: the editor's own text colour. */
  color?: TextToken;
  fontWeight?: 'bold';
  fontStyle?: 'italic';
  textDecoration?: 'line-through';
}

export const EDITOR_SYNTAX: readonly SyntaxRule[] = [
  // The markers (#, *, _, `, >, list bullets, link brackets): quiet, but readable.
  { tag: [tags.processingInstruction, tags.meta, tags.contentSeparator], color: '--text-muted' },
  { tag: tags.heading, color: '--text', fontWeight: 'bold' },
  { tag: tags.strong, fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: [tags.link, tags.url], color: '--accent-text' },
  { tag: [tags.quote, tags.comment], color: '--text-muted' },
  { tag: tags.monospace, color: '--text' },
];

/** The backgrounds editor text sits on: the editor's surface, and the line the cursor is on over it. */
export const EDITOR_BACKGROUNDS = ['--surface', '--hover'] as const;
