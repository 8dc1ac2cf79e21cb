/**
 * What writing SSE frames as their contract parses them costs (server/http/sse-frames.ts),
 * against JSON.stringify as the streams wrote them before, in the same run, taking turns
 * (BENCH_ONLY=sse-frames). One sample is one pump pass of a burst: BURST frames of a kind, as the
 * owner's feed reads them in batches of 500 and an identity's stream its pending wake items. Each
 * reader builds its own frames (its own cursors, its own recipient), so the parse is per frame
 * written, never repeated for a frame already parsed.
 */
import { IdentityStreamFrames, NodeFeedFrames, type MailWakeFrame, type NodeChatWake, type NodeMailWake } from '../contract/core/events.ts';
import { frameWriter, type FrameSchemas } from '../server/http/sse-frames.ts';
import { report, timeInterleaved, type Timing } from './measure.ts';

const PASSES = Number(process.env.BENCH_SSE_FRAME_PASSES ?? 2000);
const BURST = 500;

const mail: MailWakeFrame = {
  type: 'mail_message',
  message_id: '0193f0c2-7d1e-7a4b-9c1d-2f3e4a5b6c7d',
  from_alias: 'ann.frames.test',
  from_address: 'ann@frames.test',
  from_did: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
  from_stable_id: null,
  subject: 'The quarterly numbers, part 3',
  priority: 'high',
  wake_mode: 'prompt',
  created_at: '2026-12-07T07:00:00.000Z',
  unread_count: 12,
};
const nodeMail: NodeMailWake = {
  agent_id: 'agent-0193f0c2',
  type: 'mail_message',
  message_id: mail.message_id,
  from_alias: mail.from_alias,
  from_address: mail.from_address,
  subject: mail.subject,
  end_to_end: false,
  priority: 'high',
  created_at: mail.created_at,
};
const nodeChat: NodeChatWake = {
  agent_id: 'agent-0193f0c2',
  type: 'chat_message',
  message_id: mail.message_id,
  from_alias: mail.from_alias,
  from_address: mail.from_address,
  end_to_end: false,
  session_id: 'session-0193f0c2',
  preview: 'Are the quarterly numbers ready? '.repeat(6),
  sender_leaving: false,
  sender_rejoining: false,
  created_at: mail.created_at,
};

const silent = { error: () => {} };
const ratio = (after: Timing, before: Timing): number => Math.round((after.p50_ms / before.p50_ms) * 100) / 100;

async function burst(name: string, frames: FrameSchemas, event: string, frame: object): Promise<void> {
  const production = frameWriter(frames, false, silent);
  const strict = frameWriter(frames, true, silent);
  const times = await timeInterleaved(PASSES, {
    before: async () => {
      for (let i = 0; i < BURST; i++) JSON.stringify({ ...frame });
    },
    after: async () => {
      for (let i = 0; i < BURST; i++) production(event, { ...frame });
    },
    strict: async () => {
      for (let i = 0; i < BURST; i++) strict(event, { ...frame });
    },
  });
  report(`sse-frames-${name}`, {
    burst: BURST,
    frame_bytes: JSON.stringify(frame).length,
    before: times.before,
    after: times.after,
    strict: times.strict,
    ratio_p50: ratio(times.after, times.before),
    strict_ratio_p50: ratio(times.strict, times.before),
  });
}

export async function run(): Promise<void> {
  await burst('identity-mail', IdentityStreamFrames, 'mail_message', mail);
  await burst('feed-mail', NodeFeedFrames, 'mail_message', nodeMail);
  await burst('feed-chat', NodeFeedFrames, 'chat_message', nodeChat);
}
