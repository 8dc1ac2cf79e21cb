/**
 * Theme and assets over real HTTP (spec §4.7; docs/adr/0006-library-and-document-surfaces.md):
 * theme tokens, presets, contrast, logo and wholesale replace; image assets, public serving, team
 * isolation; and the local video direct upload (pending_upload → ready through a one-time URL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDocsMember, type DocsClient } from '../support/docs.ts';
import { expectOk, expectRefusal, expectValidation } from '../support/expect.ts';
import { startTestNode, type TestNode } from '../support/node.ts';
import { connectSse, deadlineIn } from '../support/sse.ts';

/** A clock the test can move: upload URLs expire in node time (team envelopes are not used then). */
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };

let t: TestNode;
let alice: DocsClient;
let reader: DocsClient;
let outsider: DocsClient;

beforeAll(async () => {
  t = await startTestNode({ clock });
  alice = await addDocsMember(t, { team: 'themes', domain: 'themes.test', alias: 'alice' });
  reader = await addDocsMember(t, { teamId: alice.teamId, alias: 'reader', scopes: ['docs:read'] });
  outsider = await addDocsMember(t, { team: 'other', domain: 'other.test', alias: 'eve' });
});
afterAll(async () => {
  await t.stop();
});

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
const GIF = Buffer.from('GIF89a tiny gif');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('jfif')]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const MP4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(64, 7)]);
const b64 = (bytes: Buffer) => bytes.toString('base64');

const putTheme = (body: unknown, client: DocsClient = alice) => client.request('PUT', '/v1/theme', { body });
const getTheme = (client: DocsClient = alice) => client.request('GET', '/v1/theme');

describe('theme', () => {
  it('starts empty: tokens {}, null fields, updated_at null', async () => {
    expect(expectOk(await getTheme(outsider))).toEqual({
      tokens: {},
      preset: null,
      logo_asset_id: null,
      logo_url: null,
      header: null,
      footer: null,
      updated_at: null,
    });
  });

  it('stores sanitised tokens, silently dropping invalid entries', async () => {
    const theme = expectOk(
      await putTheme({
        tokens: {
          colors: { text: '#111', surface: 'rgb(255, 255, 255)', accent: 'navy', muted: 'cyan', border: 'url(x)', background: '#f0f0f0aa', glow: '#fff' },
          fonts: { body: 'serif', heading: 'comic-sans' },
          layout: { mode: 'presentation', measure: 'huge', color_scheme: 'light' },
          spacing: { gap: 4 },
        },
        preset: 'svc',
        header: 'Acme',
        footer: 'Confidential',
        unknown_key: true,
      }),
    );
    expect(theme).toEqual({
      tokens: {
        colors: { text: '#111', surface: 'rgb(255, 255, 255)', accent: 'navy', background: '#f0f0f0aa' },
        fonts: { body: 'serif' },
        layout: { mode: 'presentation', color_scheme: 'light' },
      },
      preset: 'svc',
      logo_asset_id: null,
      logo_url: null,
      header: 'Acme',
      footer: 'Confidential',
      updated_at: expect.any(String),
    });
    expect(expectOk(await getTheme())).toEqual(theme);
    expect(expectOk(await getTheme(reader))).toEqual(theme);
  });

  it('drops a group that is not an object and ignores an unknown preset', async () => {
    const theme = expectOk(await putTheme({ tokens: { colors: 'red', fonts: ['mono'] }, preset: 'aweb' }));
    expect(theme.tokens).toEqual({});
    expect(theme.preset).toBeNull();
  });

  it('replaces tokens, preset, header and footer wholesale', async () => {
    expectOk(await putTheme({ tokens: { fonts: { body: 'mono' } }, preset: 'svc', header: 'H', footer: 'F' }));
    const theme = expectOk(await putTheme({ tokens: { layout: { measure: 'wide' } } }));
    expect(theme).toMatchObject({ tokens: { layout: { measure: 'wide' } }, preset: null, header: null, footer: null });
  });

  it('refuses text on surface below WCAG AA with the ratio in the message', async () => {
    expectOk(await putTheme({ header: 'before' }));
    expectRefusal(await putTheme({ tokens: { colors: { text: '#777', surface: '#fff' } } }), 422, /4\.47:1.*4\.5:1/, 'SVC_ERR_THEME_CONTRAST_INSUFFICIENT');
    expectRefusal(await putTheme({ tokens: { colors: { text: 'yellow', surface: 'white' } } }), 422, /1\.07:1/);
    expect(expectOk(await getTheme()).header).toBe('before');
  });

  it('falls back to the base palette and checks both palettes for auto', async () => {
    // Dark text passes on the light base surface...
    expectOk(await putTheme({ tokens: { colors: { text: '#333' } } }));
    // ...and fails on the dark one.
    expectRefusal(await putTheme({ tokens: { colors: { text: '#333' }, layout: { color_scheme: 'dark' } } }), 422, /dark palette/);
    expectRefusal(await putTheme({ tokens: { colors: { text: '#333' }, layout: { color_scheme: 'auto' } } }), 422, /contrast ratio of \d+\.\d\d:1/);
    // A surface set for both palettes lets one set of text colours pass in both; the dark
    // palette's own muted text and links would be too faint on a white surface.
    expectRefusal(
      await putTheme({ tokens: { colors: { text: '#333', surface: '#fff' }, layout: { color_scheme: 'auto' } } }),
      422,
      /muted text #9da7b3 on surface #fff has a contrast ratio of 2\.43:1 \(dark palette\)/,
    );
    expectOk(await putTheme({ tokens: { colors: { text: '#333', surface: '#fff', muted: '#595959', accent: '#0a5dbd' }, layout: { color_scheme: 'auto' } } }));
    expectOk(await putTheme({ tokens: { layout: { color_scheme: 'auto' } }, preset: 'svc' }));
  });

  it('takes the dark palette’s own colours when the page follows the reader’s system, and stores them', async () => {
    // One text colour cannot pass on both surfaces: each palette gets its own.
    expectRefusal(
      await putTheme({ tokens: { colors: { text: '#1a1a1a' }, layout: { color_scheme: 'auto' } } }),
      422,
      /text #1a1a1a on surface #161b22 .*\(dark palette\)/,
    );
    const saved = expectOk(
      await putTheme({
        tokens: { colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0', nope: '#fff', muted: 'red!' }, layout: { color_scheme: 'auto' } },
      }),
    );
    expect(saved.tokens).toEqual({ colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0' }, layout: { color_scheme: 'auto' } });
    expect(expectOk(await getTheme()).tokens.dark_colors).toEqual({ text: '#f0f0f0' });
    // A page that shows only one palette paints the shared colours: the dark palette's own do not apply.
    expectRefusal(
      await putTheme({ tokens: { colors: { text: '#1a1a1a' }, dark_colors: { text: '#f0f0f0' }, layout: { color_scheme: 'dark' } } }),
      422,
      /dark palette/,
    );
    expectOk(await putTheme({ tokens: {} }));
  });

  it('checks every text colour the page paints: muted text, links and code blocks too', async () => {
    expectOk(await putTheme({ header: 'kept' }));
    const before = expectOk(await getTheme());
    // A dark scheme whose plum accent made links 2.1:1 on the dark surface, and passed when only
    // text was checked.
    expectRefusal(
      await putTheme({ tokens: { colors: { accent: '#8a1c7c' }, layout: { color_scheme: 'dark' } } }),
      422,
      /^Theme link colour \(accent\) #8a1c7c on surface #161b22 has a contrast ratio of 2\.\d\d:1 \(dark palette\); WCAG AA needs at least 4\.5:1$/,
    );
    expectRefusal(
      await putTheme({ tokens: { colors: { muted: '#aaaaaa' } } }),
      422,
      /muted text #aaaaaa on surface #ffffff has a contrast ratio of 2\.32:1 \(light palette\)/,
    );
    // Passes on the surface (4.54:1), not on the code block's tint over it.
    expectRefusal(
      await putTheme({ tokens: { colors: { text: '#767676' } } }),
      422,
      /^Theme text #767676 on code block background #f5f5f5 has a contrast ratio of 4\.1\d:1 \(light palette\)/,
    );
    // Every failing colour is named at once.
    const both = await putTheme({ tokens: { colors: { muted: '#aaaaaa', accent: '#9ecbff' } } });
    expectRefusal(both, 422, /muted text #aaaaaa.*; Theme link colour \(accent\) #9ecbff/);
    expectRefusal(
      await putTheme({ tokens: { colors: { accent: 'rgba(10, 93, 189, 0.5)' } } }),
      422,
      /link colour \(accent\) and surface colours must be opaque/,
      'SVC_ERR_THEME_CONTRAST_INSUFFICIENT',
    );
    expect(expectOk(await getTheme())).toEqual(before);
    // The same plum is fine as a light theme's links (7.8:1 on white).
    expectOk(await putTheme({ tokens: { colors: { accent: '#8a1c7c' } } }));
  });

  it('fails closed on alpha-bearing or transparent text and surface colours', async () => {
    expectRefusal(await putTheme({ tokens: { colors: { text: 'rgba(0, 0, 0, 0.9)' } } }), 422, /opaque/, 'SVC_ERR_THEME_CONTRAST_INSUFFICIENT');
    expectRefusal(await putTheme({ tokens: { colors: { text: '#00000080' } } }), 422, /opaque/);
    expectRefusal(await putTheme({ tokens: { colors: { surface: 'transparent' } } }), 422, /opaque/);
  });

  it("nudges the owner's feed when the theme is saved, so open previews repaint", async () => {
    const response = await connectSse(`${t.url}/v1/node/events/stream?deadline=${encodeURIComponent(deadlineIn(10))}`, { token: t.node.ownerToken });
    const stream = response.stream!;
    try {
      expect((await stream.next()).event).toBe('connected');
      expectOk(await putTheme({ header: 'Live' }));
      const frame = await stream.next();
      expect(frame).toMatchObject({ event: 'docs_changed', data: { team_id: alice.teamId } });
      // A refused save changes nothing, and says nothing.
      expectRefusal(await putTheme({ tokens: { colors: { text: '#eeeeee' } } }), 422);
      expect(await stream.maybeNext(300)).toBeNull();
    } finally {
      stream.close();
    }
  });

  it('refuses a preset inside tokens', async () => {
    expectValidation(await putTheme({ tokens: { preset: 'svc' } }), 'preset');
  });

  it('refuses a header or footer over 2000 characters and tokens that are not an object', async () => {
    expectValidation(await putTheme({ header: 'x'.repeat(2001) }), 'header');
    expectValidation(await putTheme({ footer: 'x'.repeat(2001) }), 'footer');
    expectValidation(await putTheme({ tokens: ['colors'] }), 'tokens');
    expectOk(await putTheme({ header: 'x'.repeat(2000) }));
  });

  it('stores a logo as an image asset, keeps it across updates, and clears it', async () => {
    const withLogo = expectOk(await putTheme({ logo: { content_type: 'image/png', data_base64: b64(PNG) }, header: 'with logo' }));
    expect(withLogo.logo_asset_id).toEqual(expect.any(String));
    expect(withLogo.logo_url).toBe(`${t.node.info.docs_url}/assets/${withLogo.logo_asset_id}`);
    const served = await fetch(withLogo.logo_url);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
    expect(expectOk(await alice.request('GET', `/v1/assets/${withLogo.logo_asset_id}`))).toMatchObject({ kind: 'image', bytes: PNG.length });

    const kept = expectOk(await putTheme({ header: 'still' }));
    expect(kept.logo_asset_id).toBe(withLogo.logo_asset_id);

    const replaced = expectOk(await putTheme({ logo: { content_type: 'image/gif', data_base64: b64(GIF) } }));
    expect(replaced.logo_asset_id).not.toBe(withLogo.logo_asset_id);

    const cleared = expectOk(await putTheme({ clear_logo: true }));
    expect(cleared).toMatchObject({ logo_asset_id: null, logo_url: null });
  });

  it('refuses a bad logo and leaves the theme as it was', async () => {
    const before = expectOk(await putTheme({ header: 'keep', logo: { content_type: 'image/jpeg', data_base64: b64(JPEG) } }));
    expectRefusal(await putTheme({ logo: { content_type: 'image/png', data_base64: 'not base64!' } }), 400, /base64/, 'SVC_ERR_IMAGE_BASE64_INVALID');
    expectRefusal(await putTheme({ logo: { content_type: 'image/png', data_base64: b64(PNG) + 'A' } }), 400, /base64/);
    expectRefusal(
      await putTheme({ logo: { content_type: 'image/png', data_base64: b64(GIF) } }),
      422,
      /image\/gif.*image\/png/,
      'SVC_ERR_ASSET_BYTES_MISMATCH',
    );
    expectRefusal(await putTheme({ logo: { content_type: 'image/svg+xml', data_base64: b64(SVG) } }), 422, /not allowed/, 'SVC_ERR_IMAGE_TYPE_NOT_ALLOWED');
    expectRefusal(await putTheme({ logo: { content_type: 'image/png', data_base64: b64(SVG) } }), 422, /not a png/, 'SVC_ERR_ASSET_BYTES_MISMATCH');
    const oversize = Buffer.concat([PNG, Buffer.alloc(256 * 1024)]);
    expectRefusal(await putTheme({ logo: { content_type: 'image/png', data_base64: b64(oversize) } }), 413, /256 KiB/, 'SVC_ERR_ASSET_TOO_LARGE');
    expect(expectOk(await getTheme())).toEqual(before);
  });

  it('needs docs:write to change the theme', async () => {
    expectRefusal(await putTheme({ header: 'reader' }, reader), 403, /docs:write/);
  });

  it('keeps each team to its own theme', async () => {
    expectOk(await putTheme({ header: 'ours' }));
    expect(expectOk(await getTheme(outsider)).header).toBeNull();
  });

  it('hands present pages the theme with a same-origin logo path', async () => {
    const theme = expectOk(await putTheme({ header: 'present', preset: 'svc', logo: { content_type: 'image/webp', data_base64: b64(WEBP) } }));
    expect(theme.logo_url.endsWith(`/assets/${theme.logo_asset_id}`)).toBe(true);
  });
});

describe('image assets', () => {
  const upload = (content_type: string, bytes: Buffer | string, client: DocsClient = alice) =>
    client.request('POST', '/v1/assets', { body: { content_type, data_base64: typeof bytes === 'string' ? bytes : b64(bytes) } });

  it.each([
    ['image/png', PNG],
    ['image/jpeg', JPEG],
    ['image/gif', GIF],
    ['image/webp', WEBP],
  ] as const)('stores a %s and returns its metadata', async (type, bytes) => {
    const asset = expectOk(await upload(type, bytes), 201);
    expect(asset).toEqual({
      asset_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'image',
      url: `${t.node.info.docs_url}/assets/${asset.asset_id}`,
      content_type: type,
      bytes: bytes.length,
      status: 'ready',
      created_at: expect.any(String),
    });
    expect(expectOk(await reader.request('GET', `/v1/assets/${asset.asset_id}`))).toEqual(asset);
  });

  it('serves the bytes publicly with locked-down headers', async () => {
    const asset = expectOk(await upload('image/png', PNG), 201);
    const response = await fetch(`${t.url}/assets/${asset.asset_id}`);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(PNG);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'");
    expectRefusal(await t.request('GET', '/assets/00000000-0000-4000-8000-000000000000'), 404, undefined, 'SVC_ERR_ASSET_NOT_FOUND');
    expectRefusal(await t.request('GET', '/assets/not-a-uuid'), 404, undefined, 'SVC_ERR_ASSET_NOT_FOUND');
  });

  it('refuses a type that is not allowed, naming the allowed ones', async () => {
    expectRefusal(await upload('image/svg+xml', SVG), 422, /image\/png, image\/jpeg, image\/gif, image\/webp/, 'SVC_ERR_IMAGE_TYPE_NOT_ALLOWED');
    expectRefusal(await upload('text/html', PNG), 422, /not allowed/);
  });

  it('refuses bytes that do not match the declared type, saying which', async () => {
    expectRefusal(await upload('image/png', JPEG), 422, /bytes are image\/jpeg, not the declared image\/png/, 'SVC_ERR_ASSET_BYTES_MISMATCH');
    expectRefusal(await upload('image/webp', SVG), 422, /not a png, jpeg, gif or webp/, 'SVC_ERR_ASSET_BYTES_MISMATCH');
  });

  it('refuses base64 that is not strict', async () => {
    expectRefusal(await upload('image/png', '!!!!'), 400, /base64/, 'SVC_ERR_IMAGE_BASE64_INVALID');
    expectRefusal(await upload('image/png', b64(Buffer.concat([PNG, Buffer.from('x')])).replace(/=+$/, '')), 400, /base64/);
    expectRefusal(await upload('image/png', b64(PNG).replace(/^./, '-')), 400, /base64/);
    expectRefusal(await upload('image/png', ''), 400, undefined, 'SVC_ERR_IMAGE_BASE64_INVALID');
  });

  it('refuses an image over 256 KiB with a 413 and accepts exactly 256 KiB', async () => {
    expectRefusal(await upload('image/png', Buffer.concat([PNG, Buffer.alloc(256 * 1024 - PNG.length + 1)])), 413, /256 KiB/, 'SVC_ERR_ASSET_TOO_LARGE');
    expectOk(await upload('image/png', Buffer.concat([PNG, Buffer.alloc(256 * 1024 - PNG.length)])), 201);
  });

  it('refuses missing fields and unknown keys', async () => {
    expectValidation(await alice.request('POST', '/v1/assets', { body: { content_type: 'image/png' } }), 'data_base64');
    expectValidation(await alice.request('POST', '/v1/assets', { body: { content_type: 'image/png', data_base64: b64(PNG), x: 1 } }), 'x');
  });

  it('needs docs:write to upload and hides other teams’ assets', async () => {
    expectRefusal(await upload('image/png', PNG, reader), 403, /docs:write/);
    const asset = expectOk(await upload('image/png', PNG), 201);
    expectRefusal(await outsider.request('GET', `/v1/assets/${asset.asset_id}`), 404, undefined, 'SVC_ERR_ASSET_NOT_FOUND');
    expectRefusal(await alice.request('GET', '/v1/assets/not-a-uuid'), 404);
  });
});

describe('video direct upload', () => {
  const start = (body: unknown, client: DocsClient = alice) => client.request('POST', '/v1/assets/video/direct-upload', { body });
  const put = (url: string, bytes: Buffer, contentType = 'video/mp4') => fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });

  it('moves from pending_upload to ready once the bytes arrive, and the URL works once', async () => {
    const started = expectOk(await start({ content_type: 'video/mp4', filename: 'demo.mp4', max_duration_seconds: 9000 }), 201);
    expect(started).toEqual({
      asset_id: expect.any(String),
      kind: 'video',
      upload_url: expect.stringMatching(new RegExp(`^${t.node.info.docs_url}/v1/assets/${started.asset_id}/upload\\?token=[A-Za-z0-9_-]{43}$`)),
      upload_expires_at: expect.any(String),
      status: 'pending_upload',
      content_type: 'video/mp4',
    });
    const ttl = Date.parse(started.upload_expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(59 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);

    const pending = expectOk(await alice.request('GET', `/v1/assets/${started.asset_id}`));
    expect(pending).toMatchObject({ kind: 'video', status: 'pending_upload', bytes: null, filename: 'demo.mp4', max_duration_seconds: 600 });
    expectRefusal(await t.request('GET', `/assets/${started.asset_id}`), 404, undefined, 'SVC_ERR_ASSET_NOT_FOUND');

    const response = await put(started.upload_url, MP4);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ asset_id: started.asset_id, status: 'ready', bytes: MP4.length });

    expect(expectOk(await reader.request('GET', `/v1/assets/${started.asset_id}`))).toMatchObject({
      status: 'ready',
      bytes: MP4.length,
      upload_expires_at: null,
    });
    const served = await fetch(`${t.url}/assets/${started.asset_id}`);
    expect(served.headers.get('content-type')).toBe('video/mp4');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(MP4);

    const again = await put(started.upload_url, MP4);
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ detail: expect.stringMatching(/No pending upload/), code: 'SVC_ERR_UPLOAD_NOT_PENDING' });
  });

  it('refuses a wrong content type, a wrong token and bytes that are not the container', async () => {
    const started = expectOk(await start({ content_type: 'video/webm' }), 201);
    const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { code: unknown }).code });
    expect(await refusal(await put(started.upload_url, MP4, 'video/mp4'))).toEqual({ status: 415, code: 'SVC_ERR_UNSUPPORTED_MEDIA_TYPE' });
    expect(await refusal(await put(started.upload_url.replace(/token=.*/, 'token=nope'), MP4, 'video/webm'))).toEqual({
      status: 404,
      code: 'SVC_ERR_UPLOAD_NOT_PENDING',
    });
    expect((await put(started.upload_url.replace(/\?token=.*/, ''), MP4, 'video/webm')).status).toBe(404);
    expect(await refusal(await put(started.upload_url, MP4, 'video/webm'))).toEqual({ status: 422, code: 'SVC_ERR_ASSET_BYTES_MISMATCH' });
    expect(expectOk(await alice.request('GET', `/v1/assets/${started.asset_id}`)).status).toBe('pending_upload');
    const webm = Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(32)]);
    expect((await put(started.upload_url, webm, 'video/webm')).status).toBe(200);
  });

  it('refuses an expired upload URL with a 410', async () => {
    const started = expectOk(await start({ content_type: 'video/quicktime' }), 201);
    offsetMs = 61 * 60 * 1000;
    try {
      const expired = await put(started.upload_url, MP4, 'video/quicktime');
      expect(expired.status).toBe(410);
      expect(await expired.json()).toEqual({ detail: expect.stringMatching(/expired/), code: 'SVC_ERR_UPLOAD_URL_EXPIRED' });
    } finally {
      offsetMs = 0;
    }
  });

  it('reports a never-completed upload as error after expiry', async () => {
    const started = expectOk(await start({ content_type: 'video/mp4' }), 201);
    const asset = await alice.request('GET', `/v1/assets/${started.asset_id}`);
    expect(expectOk(asset).status).toBe('pending_upload');
    offsetMs = 61 * 60 * 1000;
    let status: string;
    try {
      // The team envelope is signed with the real time and checked against the shifted node clock,
      // so read the state through a fresh envelope timestamped in node time.
      const shifted = await alice.request('GET', `/v1/assets/${started.asset_id}`, {
        timestamp: clock
          .now()
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z'),
      });
      status = expectOk(shifted).status;
    } finally {
      offsetMs = 0;
    }
    expect(status).toBe('error');
  });

  it('refuses other video types, bad fields and readers', async () => {
    expectValidation(await start({ content_type: 'video/avi' }), 'content_type');
    expectValidation(await start({ content_type: 'video/mp4', max_duration_seconds: 1.5 }), 'max_duration_seconds');
    expectValidation(await start({}), 'content_type');
    expectRefusal(await start({ content_type: 'video/mp4' }, reader), 403, /docs:write/);
  });
});
