/**
 * How common a phrase is, estimated without reading its whole row list (scoring.ts), against the
 * exact counts in a real node database: a word in a third of the mail is estimated from the
 * newest rows, a rare one and a rare prefix counted in the index.
 */
import { describe, expect, it } from 'vitest';
import { seeded } from '../../test/support/seeded.ts';
import { mailRow } from '../../test/support/mail-rows.ts';
import { addIdentity, useStoreDatabase } from '../../test/support/store-database.ts';
import { insertMailRow } from '../surfaces/core/mail/store/messages.ts';
import { SearchIndexer } from './indexer.ts';
import { parseQuery } from './query.ts';
import { estimatedHits, textColumns } from './scoring.ts';
import { idSpan } from './store/index-texts.ts';

const database = useStoreDatabase();
const MAILS = 3000;

describe('estimatedHits', () => {
  it('is close to the exact count for common words and prefixes, and exact for rare ones', () => {
    const db = database();
    const sender = addIdentity(db, { alias: 'sender' });
    const recipient = addIdentity(db, { alias: 'recipient' });
    const random = seeded(11);
    const words = ['lorem', 'ipsum', 'dolor', 'amet', 'tempor', 'magna'];
    db.transaction(() => {
      for (let i = 0; i < MAILS; i++) {
        const body = Array.from({ length: 12 }, () => words[Math.floor(random() * words.length)]!);
        if (random() < 0.3) body.push('report');
        if (random() < 0.2) body.push(random() < 0.5 ? 'contract' : 'control');
        if (i % 300 === 7) body.push('narwhal');
        insertMailRow(
          db,
          mailRow(sender, recipient, {
            message_id: `m-${i}`,
            subject: `note ${i}`,
            body: body.join(' '),
            created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
          }),
        );
      }
    })();
    new SearchIndexer(db).runToEnd();
    const span = idSpan(db, 'messages')!;
    for (const [q, tolerance] of [
      ['report', 0.25],
      ['contr*', 0.3],
      ['narwhal', 0],
      ['narw*', 0],
      ['"report contract"', 0],
    ] as const) {
      const phrases = parseQuery(q).phrases;
      const exact = db
        .prepare(`SELECT count(*) FROM search_mail WHERE search_mail MATCH ?`)
        .pluck()
        .get(phrases[0]!.match(textColumns('mail'))) as number;
      const [estimate] = estimatedHits(db, 'mail', phrases, span);
      expect(Math.abs(estimate! - exact), `${q}: estimated ${estimate}, exactly ${exact}`).toBeLessThanOrEqual(exact * tolerance);
    }
  });
});
