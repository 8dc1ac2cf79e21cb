/**
 * The owner's consent to a namespace is one use case of the namespace service, whoever asks (the
 * owner API, the CLI through it, first-run setup): a node-held key made for it, the same namespace
 * when asked again, a refusal for one an outside key controls, and no key kept when it is refused.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../../errors.ts';
import { startCoreNode, type CoreNode } from '../../../../test/support/core-node.ts';
import { testKey } from '../../../../test/support/keys.ts';

let node: CoreNode;

beforeAll(async () => {
  node = await startCoreNode();
  return () => node.close();
});

const codeOf = async (work: Promise<unknown>): Promise<string> => {
  try {
    await work;
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('the owner’s consent to a namespace, by the service', () => {
  it('makes a node-held key for it, and answers the same namespace when asked again', async () => {
    const { namespaces } = node.services;
    const first = await namespaces.consentByOwner('held.test');
    expect(first).toMatchObject({ created: true, namespace: { domain: 'held.test', node_controlled: true } });
    const again = await namespaces.consentByOwner('held.test');
    expect(again).toEqual({ created: false, namespace: first.namespace });
  });

  it('refuses a key of its own for a namespace an outside key controls', async () => {
    const { namespaces } = node.services;
    const outside = testKey();
    expect((await namespaces.consentByOwner('outside.test', outside.didKey)).created).toBe(true);
    expect(await codeOf(namespaces.consentByOwner('outside.test'))).toBe('SVC_ERR_NAMESPACE_TAKEN');
  });

  it('keeps no key when the namespace is refused', async () => {
    const { namespaces, directory } = node.services;
    directory.set('peered.test', 'https://node.peer.example');
    const made = vi.spyOn(node.ctx.custody, 'createSigningKey');
    expect(await codeOf(namespaces.consentByOwner('peered.test'))).toBe('SVC_ERR_NAMESPACE_HOSTED_ELSEWHERE');
    const keyId = made.mock.results[0]?.type === 'return' ? made.mock.results[0].value.keyId : null;
    made.mockRestore();
    expect(keyId).not.toBeNull();
    expect(node.ctx.custody.hasKey(keyId as string)).toBe(false);
  });
});
