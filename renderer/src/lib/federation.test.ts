import { describe, expect, it } from 'vitest';
import type { OutboundMail } from '../api/mail.ts';
import type { TunnelConfig } from '../api/owner.ts';
import {
  addressDomain,
  chatDelivery,
  chatDeliveryPending,
  chatOutboundIndex,
  emptyTunnelForm,
  isRemoteAddress,
  mailOrigin,
  nodeHost,
  outboundBadge,
  outboundDetail,
  queuedRecipients,
  remoteParticipants,
  sentSummary,
  tunnelFormFrom,
  tunnelInput,
  tunnelIsBusy,
  tunnelStateBadge,
} from './federation.ts';

function outbound(extra: Partial<OutboundMail> = {}): OutboundMail {
  return {
    message_id: 'm1',
    kind: 'mail',
    to_address: 'elsewhere.test/bob',
    to_domain: 'elsewhere.test',
    status: 'queued',
    attempts: 0,
    next_attempt_at: '2025-01-01T00:00:00Z',
    last_error: null,
    delivered_to: null,
    created_at: '2025-01-01T00:00:00Z',
    settled_at: null,
    subject: 'Hello',
    ...extra,
  };
}

describe('tunnel state', () => {
  it('names every state with a tone, and says which ones are work in progress', () => {
    expect(['up', 'connecting', 'reconnecting', 'failed', 'stopped'].map((s) => [tunnelStateBadge(s).text, tunnelStateBadge(s).tone])).toEqual([
      ['Up', 'ok'],
      ['Connecting', 'accent'],
      ['Reconnecting', 'warn'],
      ['Failed', 'danger'],
      ['Stopped', 'neutral'],
    ]);
    expect(tunnelStateBadge('weird')).toEqual({ text: 'weird', tone: 'neutral', hint: '' });
    expect(tunnelIsBusy('connecting')).toBe(true);
    expect(tunnelIsBusy('reconnecting')).toBe(true);
    expect(tunnelIsBusy('up')).toBe(false);
    expect(tunnelIsBusy('failed')).toBe(false);
    // Never set up: not "Stopped", which would date from the node's start.
    expect(tunnelStateBadge('stopped', false).text).toBe('Not set up');
    expect(tunnelStateBadge('stopped', true).text).toBe('Stopped');
  });
});

describe('tunnel form', () => {
  const HOST_KEY = `SHA256:${'k'.repeat(43)}`;
  const config: TunnelConfig = {
    host: 'ssh.example.com',
    port: 2222,
    username: 'tunnel',
    remote_port: 8443,
    remote_bind_host: '127.0.0.1',
    public_url: null,
    host_key_sha256: HOST_KEY,
  };

  it('fills from the saved settings, or defaults to port 22', () => {
    expect(emptyTunnelForm().port).toBe('22');
    expect(tunnelFormFrom(null)).toEqual(emptyTunnelForm());
    expect(tunnelFormFrom(config)).toEqual({
      host: 'ssh.example.com',
      port: '2222',
      username: 'tunnel',
      remotePort: '8443',
      publicUrl: '',
      hostKey: HOST_KEY,
    });
  });

  it('turns the form into the PUT body, trimmed, empty optionals left out', () => {
    expect(tunnelInput({ host: ' ssh.example.com ', port: '', username: 'me', remotePort: '9000', publicUrl: ' ', hostKey: '' })).toEqual({
      input: { host: 'ssh.example.com', port: 22, username: 'me', remote_port: 9000 },
    });
    const round = tunnelInput(tunnelFormFrom(config));
    expect(round).toEqual({
      input: { host: 'ssh.example.com', port: 2222, username: 'tunnel', remote_port: 8443, host_key_sha256: HOST_KEY },
    });
    expect(tunnelInput({ ...tunnelFormFrom(config), publicUrl: 'https://node.example.com' })).toMatchObject({
      input: { public_url: 'https://node.example.com' },
    });
  });

  it('says what is wrong by the node’s own rules, with the field’s label', () => {
    const ok = tunnelFormFrom({ ...config, host_key_sha256: null });
    expect(tunnelInput({ ...ok, host: '' })).toEqual({ error: 'SSH host: enter the SSH host' });
    expect(tunnelInput({ ...ok, host: 'ssh example' })).toEqual({ error: 'SSH host: enter a host name or IP address, such as ssh.example.com' });
    expect(tunnelInput({ ...ok, username: ' ' })).toEqual({ error: 'User name: enter the user name on the SSH host' });
    expect(tunnelInput({ ...ok, remotePort: '' })).toEqual({ error: 'Remote port: enter a port number' });
    expect(tunnelInput({ ...ok, remotePort: '70000' })).toEqual({ error: 'Remote port: use a whole number from 0 to 65535' });
    // The node lets the SSH host pick the remote port.
    expect(tunnelInput({ ...ok, remotePort: '0' })).toMatchObject({ input: { remote_port: 0 } });
    expect(tunnelInput({ ...ok, port: '2x' })).toEqual({ error: 'Port: use a whole number from 1 to 65535' });
    expect(tunnelInput({ ...ok, port: '0' })).toEqual({ error: 'Port: use a whole number from 1 to 65535' });
    expect(tunnelInput({ ...ok, publicUrl: 'node.example.com' })).toEqual({ error: 'Public URL: enter an http(s) URL, such as https://node.example.com' });
    expect(tunnelInput({ ...ok, hostKey: 'SHA256:abc' })).toMatchObject({
      error: expect.stringMatching(/^Host key fingerprint: paste the SHA256 fingerprint/),
    });
  });
});

describe('mail to other nodes', () => {
  it('shows a node by its host', () => {
    expect(nodeHost('https://node.example.com')).toBe('node.example.com');
    expect(nodeHost('http://127.0.0.1:4100/')).toBe('127.0.0.1:4100');
    expect(nodeHost('not a url')).toBe('not a url');
    expect(nodeHost(null)).toBeNull();
  });

  it('badges a queued mail with its attempts and last error', () => {
    expect(outboundBadge(outbound())).toMatchObject({ text: 'Queued', tone: 'warn' });
    expect(outboundBadge(outbound()).hint).toContain('first attempt');
    expect(outboundDetail(outbound())).toBe('Waiting for the first attempt');
    const retried = outbound({ attempts: 3, last_error: 'no node is known for elsewhere.test' });
    expect(outboundBadge(retried).hint).toBe('3 attempts so far; the node keeps trying. Last error: no node is known for elsewhere.test');
    expect(outboundDetail(retried)).toBe('3 attempts · no node is known for elsewhere.test');
    expect(outboundDetail(outbound({ attempts: 1 }))).toBe('1 attempt');
  });

  it('badges a delivered mail with the node that took it, a bounced one with the reason', () => {
    const delivered = outbound({ status: 'delivered', attempts: 1, delivered_to: 'https://node.elsewhere.test' });
    expect(outboundBadge(delivered)).toMatchObject({ text: 'Delivered', tone: 'ok', hint: 'Taken by the node at https://node.elsewhere.test.' });
    expect(outboundDetail(delivered)).toBe('Delivered to node.elsewhere.test');
    const bounced = outbound({ status: 'bounced', attempts: 2, last_error: 'Recipient address not found' });
    expect(outboundBadge(bounced)).toMatchObject({ text: 'Bounced', tone: 'danger', hint: 'Not delivered: Recipient address not found' });
    expect(outboundDetail(bounced)).toBe('Recipient address not found');
  });

  it('says where an inbox mail came from', () => {
    expect(mailOrigin({ origin: 'local', from_node: null })).toBeNull();
    const remote = mailOrigin({ origin: 'remote', from_node: 'https://node.acme.test' });
    expect(remote?.text).toBe('via node.acme.test');
    expect(remote?.hint).toContain('checked the sender’s address and signature');
    expect(mailOrigin({ origin: 'remote', from_node: null })?.text).toBe('via another node');
    expect(mailOrigin({ origin: 'bounce', from_node: null })).toMatchObject({ text: 'From this node (postmaster)', short: 'this node' });
  });

  it('tells queued recipients apart after a send', () => {
    const result = {
      messages: [
        { message_id: 'a', to: 'acme.test/bob', to_alias: null, to_address: 'acme.test/bob', to_did: 'did:key:z', status: 'delivered' as const },
        { message_id: 'b', to: 'elsewhere.test/bob', to_alias: null, to_address: 'elsewhere.test/bob', to_did: '', status: 'queued' as const },
      ],
    };
    expect(queuedRecipients(result)).toEqual(['elsewhere.test/bob']);
    expect(sentSummary(['acme.test/bob', 'elsewhere.test/bob'], ['elsewhere.test/bob'], (v) => (v === 'acme.test/bob' ? 'bob' : v))).toBe(
      'Sent to bob; Queued for elsewhere.test/bob (another node)',
    );
    expect(sentSummary(['elsewhere.test/bob'], ['elsewhere.test/bob'])).toBe('Queued for elsewhere.test/bob (another node)');
    expect(sentSummary(['acme.test/bob'], [])).toBe('Sent to acme.test/bob');
  });
});

describe('chat with other nodes', () => {
  const hosted = ['a.test', 'Team.Example'];

  it('tells addresses on other nodes from this node’s and from aliases', () => {
    expect(addressDomain('B.test/bob')).toBe('b.test');
    expect(addressDomain('bob')).toBeNull();
    expect(addressDomain('/bob')).toBeNull();
    expect(addressDomain('b.test/')).toBeNull();
    expect(isRemoteAddress('b.test/bob', hosted)).toBe(true);
    expect(isRemoteAddress('a.test/alice', hosted)).toBe(false);
    expect(isRemoteAddress('team.example/carol', hosted)).toBe(false);
    expect(isRemoteAddress('bob', hosted)).toBe(false);
    expect(remoteParticipants({ participant_addresses: ['a.test/carol', 'b.test/bob', 'dave'] }, hosted)).toEqual(['b.test/bob']);
    expect(remoteParticipants({ participant_addresses: ['a.test/carol'] }, hosted)).toEqual([]);
  });

  it('indexes the chat rows of the outbound list by message id', () => {
    const index = chatOutboundIndex([outbound({ message_id: 'mail-1', kind: 'mail' }), outbound({ message_id: 'chat-1', kind: 'chat', status: 'delivered' })]);
    expect([...index.keys()]).toEqual(['chat-1']);
    expect(index.get('chat-1')?.status).toBe('delivered');
  });

  it('says queued with attempts and the last error, delivered with the node, bounced with the reason', () => {
    expect(chatDelivery(undefined)).toBeNull();
    expect(chatDelivery(outbound({ kind: 'chat' }))).toMatchObject({ status: 'queued', text: 'Queued', tone: 'warn', reason: null });
    expect(chatDelivery(outbound({ kind: 'chat' }))?.hint).toContain('first attempt to reach the node for elsewhere.test');
    const retried = chatDelivery(outbound({ kind: 'chat', attempts: 2, last_error: 'could not reach http://127.0.0.1:9: refused' }));
    expect(retried?.hint).toBe('2 attempts so far; this node keeps trying. Last error: could not reach http://127.0.0.1:9: refused');
    const delivered = chatDelivery(outbound({ kind: 'chat', status: 'delivered', delivered_to: 'http://127.0.0.1:4100' }));
    expect(delivered).toMatchObject({ status: 'delivered', text: 'Delivered', tone: 'ok' });
    expect(delivered?.hint).toBe('Taken by the node at 127.0.0.1:4100.');
    const bounced = chatDelivery(outbound({ kind: 'chat', status: 'bounced', last_error: 'Refused: b.test/carol only accepts messages from contacts' }));
    expect(bounced).toMatchObject({ status: 'bounced', tone: 'danger', reason: 'Refused: b.test/carol only accepts messages from contacts' });
    expect(chatDelivery(outbound({ kind: 'chat', status: 'bounced' }))?.reason).toBe('the other node refused it.');
  });

  it('looks again only while a message of mine is queued', () => {
    const index = chatOutboundIndex([
      outbound({ message_id: 'c1', kind: 'chat', status: 'delivered' }),
      outbound({ message_id: 'c2', kind: 'chat', status: 'queued' }),
    ]);
    expect(chatDeliveryPending(['c1', 'c2'], index)).toBe(true);
    expect(chatDeliveryPending(['c1'], index)).toBe(false);
    expect(chatDeliveryPending(['old-message-without-a-row'], index)).toBe(false);
    expect(chatDeliveryPending([], index)).toBe(false);
  });
});
