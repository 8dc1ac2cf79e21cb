/**
 * The `control_signals` table: pause, resume and interrupt signals queued for an identity until
 * one event stream delivers them. The only module that reads or writes it.
 */
import type { Signal } from '../../../../contract/core/control.ts';
import type { Db } from '../../../context.ts';

export interface ControlSignalRow {
  /** Row id: the order signals are delivered in. */
  id: number;
  signal_id: string;
  target_agent_id: string;
  from_agent_id: string;
  signal: Signal;
  created_at: string;
  consumed_at: string | null;
}

export function insertControlSignal(db: Db, row: Omit<ControlSignalRow, 'id' | 'consumed_at'>): void {
  db.prepare(
    `INSERT INTO control_signals (signal_id, target_agent_id, from_agent_id, signal, created_at) VALUES (@signal_id, @target_agent_id, @from_agent_id, @signal, @created_at)`,
  ).run(row);
}

/** Signals no stream has taken yet, oldest first. */
export function pendingControlSignals(db: Db, targetAgentId: string): ControlSignalRow[] {
  return db.prepare(`SELECT * FROM control_signals WHERE target_agent_id = ? AND consumed_at IS NULL ORDER BY id`).all(targetAgentId) as ControlSignalRow[];
}

/** Marks the signal consumed; true only for the one caller that found it still pending. */
export function consumeControlSignal(db: Db, id: number, consumedAt: string): boolean {
  return db.prepare(`UPDATE control_signals SET consumed_at = ? WHERE id = ? AND consumed_at IS NULL`).run(consumedAt, id).changes === 1;
}
