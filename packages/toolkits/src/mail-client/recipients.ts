/** Graph recipients: `{ emailAddress: { address, name? } }` for each address a model gives as text. */

export interface Recipient {
  emailAddress: { address: string; name?: string };
}

export const recipients = (addresses: unknown): Recipient[] | undefined =>
  Array.isArray(addresses) ? addresses.map((address: string) => ({ emailAddress: { address } })) : undefined;

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The list after removing and then adding addresses (compared without case; existing entries keep their
 * display names). Removing an address the list lacks is reported, not ignored.
 */
export function adjust(current: Recipient[], add: string[] = [], remove: string[] = []): { list: Recipient[] } | { missing: string[] } {
  const missing = remove.filter((address) => !current.some((r) => same(r.emailAddress.address, address)));
  if (missing.length) return { missing };
  const list = current.filter((r) => !remove.some((address) => same(r.emailAddress.address, address)));
  for (const address of add) if (!list.some((r) => same(r.emailAddress.address, address))) list.push({ emailAddress: { address } });
  return { list };
}
