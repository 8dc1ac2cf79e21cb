import { describe, expect, it } from 'vitest';
import { DeviceKeys, newDeviceSecret } from '../custody/device-key.ts';
import { generateX25519KeyPair } from '../crypto/e2ee/x25519.ts';
import { BundleUnreadableError, openBundle, sealBundle } from './keys-bundle.ts';

function material() {
  const pair = generateX25519KeyPair();
  return {
    signing: [],
    encryption: [
      { key_id: 'e1', public_key: pair.publicKey, created_at: '2026-12-07T00:00:00Z', archived_at: null, destroyed_at: null, private_key: pair.privateKey },
    ],
    backupKey: Buffer.alloc(32, 7),
  };
}

describe('the keys bundle a joining device receives', () => {
  it('opens with the device key it was sealed to, for the node and device it names', () => {
    const device = new DeviceKeys(newDeviceSecret());
    const keys = material();
    const sealed = sealBundle(keys, 50, 'node-1', 'dev_a', device.boxKey);
    const opened = openBundle(sealed, 'node-1', 'dev_a', device.agreement);
    expect(opened.keys.encryption[0]!.private_key).toEqual(keys.encryption[0]!.private_key);
    expect(opened.keys.backupKey).toEqual(Buffer.alloc(32, 7));
    expect(opened.tables).toEqual([]);
  });

  it('does not open with another device key, nor as another device or node', () => {
    const device = new DeviceKeys(newDeviceSecret());
    const keys = material();
    const sealed = sealBundle(keys, 50, 'node-1', 'dev_a', device.boxKey);
    expect(() => openBundle(sealed, 'node-1', 'dev_a', new DeviceKeys(newDeviceSecret()).agreement)).toThrow(BundleUnreadableError);
    expect(() => openBundle(sealed, 'node-1', 'dev_b', device.agreement)).toThrow(BundleUnreadableError);
    expect(() => openBundle(sealed, 'node-2', 'dev_a', device.agreement)).toThrow(BundleUnreadableError);
    const flipped = Buffer.from(sealed.ciphertext, 'base64url');
    flipped[5]! ^= 1;
    expect(() => openBundle({ ...sealed, ciphertext: flipped.toString('base64url') }, 'node-1', 'dev_a', device.agreement)).toThrow(BundleUnreadableError);
  });
});
