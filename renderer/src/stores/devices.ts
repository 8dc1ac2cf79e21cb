/**
 * The devices that hold this node's identities (Settings → Devices): the list, the one-time code
 * a new device joins with while it is showing, and revoking a device. The list follows the node:
 * a device that joins or is revoked (from this window, another one, or `svc-node device`) nudges
 * `devices_changed` on the owner feed and the list is read again, so a device joining with the
 * code shows at once; after a reconnect nothing is replayed, so it is read again then too. The
 * code lives here rather than in the panel, so it stays up while the person looks elsewhere.
 */
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import { DEVICE_LINK_CODE_SECONDS } from '../../../contract/node/devices.ts';
import type { Device, DeviceLinkCreated } from '../api/owner.ts';
import { sortDevices } from '../lib/devices.ts';
import { errorMessage } from '../lib/format.ts';
import { newestRead } from '../lib/newest-read.ts';
import { useLiveStore } from './live.ts';
import { useSessionStore } from './session.ts';

/** A link code as the panel shows it. */
export interface ShownLink extends DeviceLinkCreated {
  /**
   * When it stops working, by this window's clock: the node's ten minutes counted from when its
   * answer arrived, so a clock that differs from the node's does not shorten or stretch them.
   */
  deadline: number;
  /** When the node made it, by the node's clock: a device listed since joined with it. */
  madeAt: string;
}

export const useDevicesStore = defineStore('devices', () => {
  const session = useSessionStore();

  const devices = ref<Device[]>([]);
  const loaded = ref(false);
  const error = ref<string | null>(null);
  const link = ref<ShownLink | null>(null);

  const sorted = computed(() => sortDevices(devices.value));
  /** The device that joined with the code showing (listed since it was made), once it has. */
  const joined = computed((): Device | null => {
    const shown = link.value;
    if (shown === null) return null;
    return devices.value.find((device) => !device.this_device && device.linked_at >= shown.madeAt) ?? null;
  });

  // The device that joined was revoked since (here or elsewhere): what the panel said of it no longer holds.
  watch(joined, (device) => {
    if (device?.revoked_at != null) closeLink();
  });

  /** An answer older than one asked for since (a nudge's) is dropped. */
  const load = newestRead(async (newest) => {
    try {
      const list = await session.api().devices();
      if (!newest()) return;
      devices.value = list;
      error.value = null;
    } catch (failure) {
      if (newest()) error.value = errorMessage(failure);
    } finally {
      if (newest()) loaded.value = true;
    }
  });

  /** A new code from the node, shown in place of any earlier one (which then still works until it expires). */
  async function makeLink(): Promise<ShownLink> {
    const made = await session.api().linkDevice();
    const madeAt = new Date(Date.parse(made.expires_at) - DEVICE_LINK_CODE_SECONDS * 1000).toISOString();
    link.value = { ...made, deadline: Date.now() + DEVICE_LINK_CODE_SECONDS * 1000, madeAt };
    return link.value;
  }

  /** The person is done with the code (it joined a device, or they closed it): it goes from the window. */
  function closeLink(): void {
    link.value = null;
  }

  /**
   * Revokes another device; the list shows it revoked at once, then as the node has it. With
   * `rotateKeys` (the device may be in someone else's hands), every identity whose keys the node
   * holds then gets a new signing key and a new encryption key, so the keys that device was given
   * no longer speak for anyone; the answer says how many.
   */
  async function revoke(deviceId: string, options: { rotateKeys?: boolean } = {}): Promise<Device & { rotated: number }> {
    const api = session.api();
    const revoked = await api.revokeDevice(deviceId);
    devices.value = devices.value.map((device) => (device.device_id === revoked.device_id ? revoked : device));
    void load();
    let rotated = 0;
    if (options.rotateKeys === true) {
      for (const identity of await api.identities()) {
        if (identity.lifetime !== 'persistent' || identity.custody !== 'custodial' || identity.status !== 'active') continue;
        await api.rotateSigningKey(identity.agent_id);
        await api.rotateEncryptionKey(identity.agent_id);
        rotated += 1;
      }
    }
    return { ...revoked, rotated };
  }

  const live = useLiveStore();
  live.onChange((change) => {
    if (change.kind === 'devices_changed') void load();
  });
  live.onOpen(() => {
    if (loaded.value) void load();
  });

  return { devices: sorted, loaded, error, link, joined, load, makeLink, closeLink, revoke };
});
