import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { NodeClient } from './owner.ts';
import type { FetchLike } from './sse.ts';
import { LibraryClient } from './library.ts';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A fake node: the owner API signs (echoing what it was asked), the library answers. */
function fakeNode(answer: (call: Call) => { status: number; body: unknown }) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    const call = { url, method: init?.method ?? 'GET', headers: { ...(init?.headers as Record<string, string>) }, body: init?.body as string | undefined };
    calls.push(call);
    if (url.includes('/sign')) {
      const asked = JSON.parse(call.body ?? '{}') as { path: string; body?: string };
      return new Response(
        JSON.stringify({
          headers: { authorization: `DIDKey z6Mk sig-${calls.length}`, 'x-svc-timestamp': 't', 'x-svc-signed-payload': 'p', 'x-svcid-team-certificate': 'c' },
          url: `http://n${asked.path}`,
        }),
        { status: 200 },
      );
    }
    const reply = answer(call);
    return new Response(JSON.stringify(reply.body), { status: reply.status });
  };
  const owner = new NodeClient({ coreUrl: 'http://n', token: 'owner', mode: 'browser', fetch });
  const library = new LibraryClient({
    libraryUrl: 'http://n/',
    teamId: 'agents:acme.test',
    fetch,
    sign: (request) => owner.signAsTeam('agents:acme.test', request),
  });
  return { calls, library };
}

describe('LibraryClient', () => {
  it('reads the public catalog without signing, tags repeated in the query', async () => {
    const { calls, library } = fakeNode(() => ({ status: 200, body: [] }));
    await library.catalog(['support', 'email']);
    await library.blueprint('support.team', '1.0.0');
    expect(calls.map((c) => [c.method, c.url, c.headers['authorization']])).toEqual([
      ['GET', 'http://n/v1/blueprints?tags=support&tags=email', undefined],
      ['GET', 'http://n/v1/blueprints/support.team?version=1.0.0', undefined],
    ]);
  });

  it('asks the owner API to sign the exact target and body, then sends that request with the headers', async () => {
    const { calls, library } = fakeNode(() => ({ status: 201, body: { profile_ref: 'triager', created: true } }));
    await library.importProfile({ source_blueprint_ref: 'support.team', profile_ref: 'triager' });
    const [sign, send] = calls;
    expect(sign?.url).toBe('http://n/v1/node/teams/agents%3Aacme.test/sign');
    expect(sign?.headers['authorization']).toBe('Bearer owner');
    const asked = JSON.parse(sign?.body ?? '{}');
    expect(asked).toEqual({ method: 'POST', path: '/v1/shelf/import', body: send?.body, surface: 'library' });
    expect(send).toMatchObject({ url: 'http://n/v1/shelf/import', method: 'POST' });
    expect(send?.headers).toMatchObject({ authorization: 'DIDKey z6Mk sig-1', 'x-svcid-team-certificate': 'c', 'content-type': 'application/json' });
    expect(JSON.parse(send?.body ?? '')).toEqual({ source_blueprint_ref: 'support.team', profile_ref: 'triager' });
  });

  it('signs a query string as part of the target, and sends bodiless requests without a body', async () => {
    const { calls, library } = fakeNode(() => ({ status: 200, body: [] }));
    await library.proposals({ status: 'open', profile_ref: 'triager' });
    await library.approve('1b4e28ba-2fa1-11d2-883f-0016d3cca427');
    const signed = calls.filter((c) => c.url.includes('/sign')).map((c) => JSON.parse(c.body ?? '{}'));
    expect(signed).toEqual([
      { method: 'GET', path: '/v1/proposals?status=open&profile_ref=triager', surface: 'library' },
      { method: 'POST', path: '/v1/proposals/1b4e28ba-2fa1-11d2-883f-0016d3cca427/approve', surface: 'library' },
    ]);
    const approve = calls.at(-1);
    expect(approve?.body).toBeUndefined();
    expect(approve?.headers['content-type']).toBeUndefined();
  });

  it('creates, publishes, imports and deletes with the bodies the node expects', async () => {
    const { calls, library } = fakeNode(() => ({ status: 201, body: {} }));
    const files = [{ path: 'profile.yaml', content_utf8: 'id: reviewer\nversion: 0.1.0\n' }];
    await library.createProfile({ files });
    await library.publish('reviewer', { blueprint_version: '1.0.0', new_blueprint: { blueprint_ref: 'review.team', name: 'Review', tags: ['code'] } });
    await library.publish('tester', { blueprint_version: '1.1.0', profile_version: '0.1.0', target_blueprint_ref: 'review.team' });
    await library.importBlueprint({ schema: 'svc.blueprint.import-payload.v1', files: [{ path: 'blueprint.yaml', content_utf8: 'id: x\n' }] });
    await library.deleteBlueprint('review.team');
    const sent = calls.filter((c) => !c.url.includes('/sign')).map((c) => [c.method, c.url, c.body === undefined ? undefined : JSON.parse(c.body)]);
    expect(sent).toEqual([
      ['POST', 'http://n/v1/profiles', { files }],
      [
        'POST',
        'http://n/v1/profiles/reviewer/publish',
        { blueprint_version: '1.0.0', new_blueprint: { blueprint_ref: 'review.team', name: 'Review', tags: ['code'] } },
      ],
      ['POST', 'http://n/v1/profiles/tester/publish', { blueprint_version: '1.1.0', profile_version: '0.1.0', target_blueprint_ref: 'review.team' }],
      ['POST', 'http://n/v1/blueprints/import', { schema: 'svc.blueprint.import-payload.v1', files: [{ path: 'blueprint.yaml', content_utf8: 'id: x\n' }] }],
      ['DELETE', 'http://n/v1/blueprints/review.team', undefined],
    ]);
    // Each was signed as sent: the same target and body text.
    const signed = calls.filter((c) => c.url.includes('/sign')).map((c) => JSON.parse(c.body ?? '{}'));
    expect(signed.map((r) => [r.method, r.path])).toEqual(sent.map(([method, url]) => [method, (url as string).slice('http://n'.length)]));
    expect(signed[3].body).toBe(calls.find((c) => c.url === 'http://n/v1/blueprints/import')?.body);
  });

  it("turns a refusal into an ApiError with the node's detail", async () => {
    const { library } = fakeNode(() => ({ status: 409, body: { detail: 'instructions.md is stale' } }));
    const error = await library.approve('x').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 409, message: 'instructions.md is stale' });
  });
});
