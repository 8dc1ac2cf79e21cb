/** An address `<domain>/<name>` split into its parts, with the domain normalised; null when it is not one. */
import { normalizeDomain } from '../../../crypto/dns-txt.ts';
import { ADDRESS_NAME } from '../../../../contract/core/namespaces.ts';

export interface AddressParts {
  domain: string;
  name: string;
}

export function splitAddress(address: string): AddressParts | null {
  const slash = address.indexOf('/');
  if (slash < 0) return null;
  const domain = normalizeDomain(address.slice(0, slash));
  const name = address.slice(slash + 1);
  return domain === null || !ADDRESS_NAME.test(name) ? null : { domain, name };
}
