/**
 * Video direct uploads as a client streams them: the bytes generated a chunk at a time (never the
 * whole file in the test's memory), sent over real HTTP with or without a Content-Length, and
 * optionally cut off mid-way as a dropped connection would. Also the resident memory of a node's
 * process, for the tests that bound what uploads cost it.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

/** The first bytes of an MP4 (an ISO BMFF `ftyp` box): what the node checks an upload starts with. */
export const MP4_HEAD = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42')]);

export interface PutVideoOptions {
  /** Bytes to send in all (the first are MP4_HEAD). */
  bytes: number;
  contentType?: string;
  /** Send a Content-Length (default); false streams it chunked, so only the node's counting can stop it. */
  declareLength?: boolean;
  /** Declare this length instead of the real one (the node must refuse before reading). */
  declaredLength?: number;
  /** Destroy the connection once this many bytes were sent. */
  abortAfter?: number;
  chunkBytes?: number;
}

export interface PutVideoResult {
  /** 0 when no response came (the upload was cut off). */
  status: number;
  body: any;
  /** Bytes written to the socket before the answer or the abort. */
  sent: number;
}

/** The generated video is this block over and over, cut to length: it starts with MP4_HEAD. */
function pattern(chunkBytes: number): Buffer {
  const block = Buffer.alloc(chunkBytes);
  for (let i = 0; i < chunkBytes; i++) block[i] = (i * 31 + (i >> 11)) & 0xff;
  MP4_HEAD.copy(block);
  return block;
}

/** The sha256 of the video putVideo sends for these options. */
export function videoSha256(bytes: number, chunkBytes = DEFAULT_CHUNK): string {
  const block = pattern(chunkBytes);
  const hash = createHash('sha256');
  for (let sent = 0; sent < bytes; sent += chunkBytes) hash.update(block.subarray(0, Math.min(chunkBytes, bytes - sent)));
  return hash.digest('hex');
}

const DEFAULT_CHUNK = 256 * 1024;

/**
 * PUTs a generated video of `bytes` to `url`, streaming it with back-pressure. A node that refuses
 * mid-way answers and closes; the answer is returned even when the rest of the body could not be
 * written. With `abortAfter` the connection is destroyed and the status is 0.
 */
export function putVideo(url: string, options: PutVideoOptions): Promise<PutVideoResult> {
  const { bytes, contentType = 'video/mp4', declareLength = true, chunkBytes = DEFAULT_CHUNK } = options;
  const headers: Record<string, string | number> = { 'content-type': contentType };
  if (declareLength) headers['content-length'] = options.declaredLength ?? bytes;
  const block = pattern(chunkBytes);
  return new Promise((resolve) => {
    let sent = 0;
    let settled = false;
    const done = (status: number, body: unknown): void => {
      if (settled) return;
      settled = true;
      resolve({ status, body, sent });
    };
    // A connection of its own: one a refused upload left half-sent is never reused.
    const req = request(url, { method: 'PUT', headers, agent: false });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const finish = (): void => {
        let body: unknown = text;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          // Not JSON: the test sees the text.
        }
        done(response.statusCode ?? 0, body);
      };
      response.on('end', finish);
      response.on('error', finish);
    });
    // A write error after the node answered and closed: the response (if any) still settles it.
    req.on('error', (error) => setTimeout(() => done(0, String(error)), 500));
    const write = (): void => {
      while (sent < bytes && !req.destroyed) {
        if (options.abortAfter !== undefined && sent >= options.abortAfter) {
          req.destroy();
          done(0, null);
          return;
        }
        const chunk = block.subarray(0, Math.min(chunkBytes, bytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once('drain', write);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

/** A process's resident set in bytes: /proc on Linux, `ps` elsewhere. */
export function residentBytes(pid: number): number {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  }
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024;
}
