/**
 * Whether the node answers as upstream's registry says it (`GET /health`), so the same monitors
 * work: `{status, version, checks}`, healthy while the database answers.
 */
import type { Health } from '../../../../contract/core/health.ts';
import type { Db } from '../../../context.ts';
import { NODE_VERSION } from '../../../version.ts';
import { databaseAnswers } from './store.ts';

export class HealthService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  check(): Health {
    const database = databaseAnswers(this.#db) ? 'ok' : 'error';
    return { status: database === 'ok' ? 'ok' : 'unhealthy', version: NODE_VERSION, checks: { database } };
  }
}
