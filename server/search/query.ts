/**
 * What a user types into a search box, parsed and rendered as an FTS5 MATCH expression that
 * cannot fail and cannot reach past the columns it is given.
 *
 * User text never reaches MATCH raw: an FTS5 syntax error would be a 500, and `scope:` or a column
 * filter typed by the user would escape the caller's scoping. So the query is parsed here into
 * terms and operators; every term is re-emitted as double-quoted strings (nothing inside a quoted
 * string is FTS5 syntax), every operator is written by this module, and the whole expression sits
 * under a column filter naming only the text columns.
 *
 * Grammar (operators upper-case only, as search boxes take them; lower-case `and` is a word):
 *   or      := and ('OR' and)*
 *   and     := unary (['AND'] unary)*        juxtaposition is AND
 *   unary   := ('NOT' | '-')* primary        `-` only when glued to a word, quote or parenthesis
 *   primary := word['*'] | '"' phrase '"'['*'] | '(' or ')'
 */
import { MAX_SEARCH_QUERY, MIN_SEARCH_CHARS } from '../../contract/core-rules.ts';
import { invalid } from '../errors.ts';
import { tokenize } from './fold.ts';

/** The refusal's code (contract/core/errors.ts). */
export const SEARCH_QUERY_INVALID = 'SVC_ERR_SEARCH_QUERY_INVALID';

/** Hostile-input bounds: the parser's work and the FTS5 query's cost stay small. */
export const MAX_QUERY_CHARS = MAX_SEARCH_QUERY;
export const MAX_TERMS = 32;
export const MAX_DEPTH = 8;
/** FTS5 answers a one-letter prefix by scanning every term; the tables index prefixes of 2 and 3. */
const MIN_PREFIX_CHARS = MIN_SEARCH_CHARS;

/**
 * The words of an index that start with a prefix (lower-case ASCII), or null when there are too
 * many to name: a one-word prefix is then asked for as those words (`("contract" OR "control")`),
 * which FTS5 walks newest first lazily, instead of as `"contr"*`, whose words' row lists FTS5
 * merges whole before the walk starts (migration 0032).
 */
export type PrefixWords = (prefix: string) => string[] | null;

export interface ParsedQuery {
  /** FTS5 MATCH expression over the given text columns, every token double-quoted; `words` names a prefix's words. */
  match(columns: readonly string[], words?: PrefixWords): string;
  /** Positive terms for highlighting: folded tokens, and whether each is a prefix. */
  highlightTerms: Array<{ token: string; prefix: boolean }>;
  /** Every term not under a negation, once each: what relevance weighs (scoring.ts). */
  phrases: QueryPhrase[];
}

/** One term of a query as FTS5 reads it: a phrase of one or more tokens, its last one maybe a prefix. */
export interface QueryPhrase {
  /** Folded, for comparing with text folded the same way (fold.ts). */
  tokens: string[];
  prefix: boolean;
  /** FTS5 MATCH expression for this phrase alone over the given text columns. */
  match(columns: readonly string[]): string;
}

type Lexeme = { kind: 'term'; pos: number; raw: string[]; folded: string[]; prefix: boolean } | { kind: 'AND' | 'OR' | 'NOT' | '-' | '(' | ')'; pos: number };

type Node =
  { kind: 'term'; raw: string[]; folded: string[]; prefix: boolean } | { kind: 'and' | 'or'; children: Node[] } | { kind: 'not'; child: Node; pos: number };

const SPACE = /\s/u;
const TOKEN_START = /^[\p{L}\p{N}\p{Co}]/u;
const MARK = /\p{M}/u;
/** Column names are written into the expression bare, so they must be plain identifiers. */
const COLUMN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FTS5_KEYWORDS = new Set(['AND', 'OR', 'NOT', 'NEAR']);

export function parseQuery(q: string): ParsedQuery {
  const lexemes = lex(q);
  if (lexemes.length === 0) fail('empty query');
  const root = new Parser(q, lexemes).parse();
  if (root === null) fail('no searchable words: the query holds only punctuation or symbols');
  const expression = positive(q, root);
  return {
    highlightTerms: collectHighlights(root),
    phrases: collectPhrases(root).map((term) => ({ tokens: term.folded, prefix: term.prefix, match: (columns) => underColumns(columns, quoted(term)) })),
    match: (columns, words) => underColumns(columns, words === undefined ? expression : positive(q, root, words)),
  };
}

/** `expression` restricted to `columns`, which the code names (never user text). */
function underColumns(columns: readonly string[], expression: string): string {
  if (columns.length === 0 || columns.some((c) => !COLUMN.test(c) || FTS5_KEYWORDS.has(c.toUpperCase()))) {
    throw new Error(`search columns must be plain identifiers: ${JSON.stringify(columns)}`);
  }
  return `{${columns.join(' ')}} : (${expression})`;
}

/** A term as FTS5 syntax: the user's own characters, not the folded tokens: FTS5 folds them as it folded the documents, which foldText only approximates (fold.ts says where they differ). */
const quoted = (term: Extract<Node, { kind: 'term' }>): string =>
  term.raw.map((token) => `"${token.replaceAll('"', '""')}"`).join(' + ') + (term.prefix ? '*' : '');

/** Only a plain ASCII prefix is named by its words: its folding is lower case, exactly as FTS5's. */
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/** A one-word prefix as the words it covers, when `words` names them; else as FTS5's prefix. */
function prefixAsWords(term: Extract<Node, { kind: 'term' }>, words: PrefixWords | undefined): string | null {
  const [only, ...more] = term.raw;
  if (words === undefined || !term.prefix || only === undefined || more.length > 0 || !ASCII_WORD.test(only)) return null;
  const named = words(only.toLowerCase());
  // No word at all: FTS5's prefix matches nothing just as fast.
  return named === null || named.length === 0 ? null : `(${named.map((word) => `"${word}"`).join(' OR ')})`;
}

function fail(msg: string): never {
  throw invalid(SEARCH_QUERY_INVALID, [{ loc: ['query', 'q'], msg, type: 'value_error' }]);
}

/** 1-based position as a person counts it: code points, so an emoji is one character. */
function charAt(q: string, offset: number): number {
  let n = 1;
  for (const _ of q.slice(0, offset)) n++;
  return n;
}

function lex(q: string): Lexeme[] {
  let chars = 0;
  for (const _ of q) if (++chars > MAX_QUERY_CHARS) fail(`query too long: at most ${MAX_QUERY_CHARS} characters`);
  const out: Lexeme[] = [];
  // After a `-`, the next word is a term even when it reads AND, OR or NOT: `-NOT` excludes "not".
  let literal = false;
  let i = 0;
  while (i < q.length) {
    const c = q.charAt(i);
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    const pos = i;
    if (c === '(' || c === ')') {
      out.push({ kind: c, pos });
      i++;
    } else if (c === '"') {
      const close = q.indexOf('"', i + 1);
      if (close < 0) fail(`unclosed quote starting at character ${charAt(q, i)}`);
      const prefix = q.charAt(close + 1) === '*';
      out.push(term(q, pos, q.slice(i + 1, close), prefix));
      i = close + (prefix ? 2 : 1);
    } else if (c === '-' && (/^["(]/.test(q.charAt(i + 1)) || TOKEN_START.test(q.slice(i + 1, i + 3)))) {
      out.push({ kind: '-', pos });
      i++;
      literal = true;
      continue;
    } else {
      let end = i;
      while (end < q.length && !SPACE.test(q.charAt(end)) && !'"()'.includes(q.charAt(end))) end++;
      const word = q.slice(i, end);
      if (!literal && (word === 'AND' || word === 'OR' || word === 'NOT')) out.push({ kind: word, pos });
      else out.push(term(q, pos, word.replace(/\*+$/, ''), word.endsWith('*')));
      i = end;
    }
    literal = false;
  }
  return out;
}

function term(q: string, pos: number, text: string, prefix: boolean): Lexeme {
  const tokens = tokenize(text);
  const raw = tokens.map((t) => text.slice(t.start, t.end));
  const last = raw.at(-1);
  // Counted as FTS5 sees the prefix: letters and digits, the accents it strips left out.
  if (prefix && last !== undefined && [...last].filter((ch) => !MARK.test(ch)).length < MIN_PREFIX_CHARS) {
    fail(`prefix too short at character ${charAt(q, pos)}: put at least ${MIN_PREFIX_CHARS} letters before *`);
  }
  return { kind: 'term', pos, raw, folded: tokens.map((t) => t.token), prefix };
}

/** Recursive descent over the lexemes; a term with no tokens (`---`) parses, then drops out as null. */
class Parser {
  private p = 0;
  private depth = 0;
  private terms = 0;

  private readonly q: string;
  private readonly lexemes: readonly Lexeme[];

  constructor(q: string, lexemes: readonly Lexeme[]) {
    this.q = q;
    this.lexemes = lexemes;
  }

  parse(): Node | null {
    const root = this.or();
    const rest = this.lexemes[this.p];
    if (rest !== undefined) fail(`unbalanced parenthesis: ")" at character ${this.at(rest)} closes nothing`);
    return root;
  }

  private at(lexeme: Lexeme): number {
    return charAt(this.q, lexeme.pos);
  }

  private or(): Node | null {
    const parts = [this.and()];
    while (this.lexemes[this.p]?.kind === 'OR') {
      this.p++;
      parts.push(this.and());
    }
    return combine('or', parts);
  }

  private and(): Node | null {
    const parts = [this.unary()];
    for (;;) {
      const next = this.lexemes[this.p];
      if (next === undefined || next.kind === 'OR' || next.kind === ')') break;
      if (next.kind === 'AND') this.p++;
      parts.push(this.unary());
    }
    return combine('and', parts);
  }

  private unary(): Node | null {
    let negations = 0;
    let pos = 0;
    for (let next = this.lexemes[this.p]; next?.kind === 'NOT' || next?.kind === '-'; next = this.lexemes[this.p]) {
      if (negations++ === 0) pos = next.pos;
      this.p++;
    }
    const operand = this.primary();
    if (operand === null || negations % 2 === 0) return operand;
    // -(-x) is x: the double negation cancels rather than reaching FTS5, which has no unary NOT.
    return operand.kind === 'not' ? operand.child : { kind: 'not', child: operand, pos };
  }

  private primary(): Node | null {
    const next = this.lexemes[this.p];
    if (next?.kind === 'term') {
      this.p++;
      if (next.raw.length === 0) return null;
      if (++this.terms > MAX_TERMS) fail(`too many terms: at most ${MAX_TERMS} (one more at character ${this.at(next)})`);
      return { kind: 'term', raw: next.raw, folded: next.folded, prefix: next.prefix };
    }
    if (next?.kind === '(') {
      this.p++;
      if (++this.depth > MAX_DEPTH) fail(`parentheses nested too deep at character ${this.at(next)}: at most ${MAX_DEPTH} levels`);
      if (this.lexemes[this.p]?.kind === ')') fail(`empty parentheses at character ${this.at(next)}`);
      const inner = this.or();
      if (this.lexemes[this.p]?.kind !== ')') fail(`unbalanced parenthesis: "(" at character ${this.at(next)} is never closed`);
      this.p++;
      this.depth--;
      return inner;
    }
    // No operand where one is needed: name the operator left dangling.
    const before = this.lexemes[this.p - 1];
    if (before !== undefined && before.kind !== 'term' && before.kind !== '(' && before.kind !== ')') {
      fail(`${before.kind === '-' ? '"-"' : before.kind} at character ${this.at(before)} has nothing after it`);
    }
    if (next?.kind === 'AND' || next?.kind === 'OR') fail(`${next.kind} at character ${this.at(next)} has nothing before it`);
    // Left: a `)` closing nothing, or the end right after a `(` (a lone `(`).
    if (next === undefined && before !== undefined) fail(`unbalanced parenthesis: "(" at character ${this.at(before)} is never closed`);
    return fail(`unbalanced parenthesis: ")" at character ${next === undefined ? 1 : this.at(next)} closes nothing`);
  }
}

function combine(kind: 'and' | 'or', parts: Array<Node | null>): Node | null {
  const children = parts.flatMap((part) => (part === null ? [] : part.kind === kind ? part.children : [part]));
  if (children.length <= 1) return children[0] ?? null;
  return { kind, children };
}

/**
 * FTS5 can only answer "these, minus those": its NOT is binary (`a NOT b`). So each AND group's
 * negations are attached to the group's positive terms, and a negation with nothing positive
 * beside it (`-x`, `a OR -b`) is refused rather than silently answered as something else.
 */
function positive(q: string, node: Node, words?: PrefixWords): string {
  switch (node.kind) {
    case 'term':
      return prefixAsWords(node, words) ?? quoted(node);
    case 'not':
      return onlyNegative(q, node.pos);
    case 'or':
      return node.children.map((child) => operand(q, child, words)).join(' OR ');
    case 'and': {
      const included = node.children.filter((child) => child.kind !== 'not');
      const excluded = node.children.flatMap((child) => (child.kind === 'not' ? [child] : []));
      const first = excluded[0];
      if (included.length === 0 && first !== undefined) return onlyNegative(q, first.pos);
      const all = included.map((child) => operand(q, child, words)).join(' AND ');
      if (excluded.length === 0) return all;
      const base = included.length > 1 ? `(${all})` : all;
      return base + excluded.map((not) => ` NOT ${operand(q, not.child, words)}`).join('');
    }
  }
}

function onlyNegative(q: string, pos: number): never {
  return fail(`only negative terms: the exclusion at character ${charAt(q, pos)} needs a term to search for beside it`);
}

/** A sub-expression as an operand: parenthesised unless it is a single term. */
function operand(q: string, node: Node, words?: PrefixWords): string {
  const text = positive(q, node, words);
  return node.kind === 'term' ? text : `(${text})`;
}

/** The folded tokens of every term not under a negation; only a prefix term's last token is a prefix. */
function collectHighlights(root: Node): ParsedQuery['highlightTerms'] {
  const seen = new Map<string, { token: string; prefix: boolean }>();
  const walk = (node: Node): void => {
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach(walk);
    if (node.kind !== 'term') return;
    node.folded.forEach((token, index) => {
      const prefix = node.prefix && index === node.folded.length - 1;
      seen.set(`${prefix ? '*' : '='}${token}`, { token, prefix });
    });
  };
  walk(root);
  return [...seen.values()];
}

/** The terms not under a negation, each once (the same tokens and prefix are the same phrase). */
function collectPhrases(root: Node): Array<Extract<Node, { kind: 'term' }>> {
  const seen = new Map<string, Extract<Node, { kind: 'term' }>>();
  const walk = (node: Node): void => {
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach(walk);
    if (node.kind === 'term') seen.set(JSON.stringify([node.folded, node.prefix]), node);
  };
  walk(root);
  return [...seen.values()];
}
