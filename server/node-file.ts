/**
 * node.json: how owner commands find the node running on a data dir (DESIGN §4). It holds the
 * owner token, so it is written with mode 0600 and removed when the node stops.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeUrls } from './context.ts';

export interface ReadyInfo extends NodeUrls {
  data_dir: string;
  pid: number;
}

export interface NodeFile extends ReadyInfo {
  owner_token: string;
}

export const nodeFilePath = (dataDir: string): string => join(dataDir, 'node.json');

export function writeNodeFile(dataDir: string, content: NodeFile): void {
  const file = nodeFilePath(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export function readNodeFile(dataDir: string): NodeFile | null {
  const file = nodeFilePath(dataDir);
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as NodeFile;
  } catch {
    return null;
  }
}

/** Removes node.json if it is this process's; a newer node's file is left alone. */
export function removeNodeFile(dataDir: string): void {
  if (readNodeFile(dataDir)?.pid === process.pid) rmSync(nodeFilePath(dataDir), { force: true });
}
