/**
 * Person identifiers as the toolkit takes them and as Customer.io takes them. Callers name a person by
 * id, email, or trk_id written with its prefix (`trk_<value>`); Customer.io calls the same identifier
 * cio_id and wants it as `cio_<value>` in a path, `{"cio_id": "<value>"}` in an identifier object, and
 * `id_type=cio_id` with bare values in segment lists.
 */

export const TRK_PREFIX = 'trk_';
const CIO_PREFIX = 'cio_';

/** The identifier types of the segment tools, ours → Customer.io's. */
export const identifierTypes: Record<string, string> = { id: 'id', email: 'email', trk_id: 'cio_id' };

/** The value of a `trk_<value>` identifier, or undefined when it is not one. */
export function trkValue(identifier: string): string | undefined {
  return identifier.startsWith(TRK_PREFIX) ? identifier.slice(TRK_PREFIX.length) : undefined;
}

/** A path identifier: `trk_<value>` becomes `cio_<value>`; ids and emails go as they are. */
export function pathIdentifier(identifier: string): string {
  const value = trkValue(identifier);
  return value === undefined ? identifier : CIO_PREFIX + value;
}

/** Free-form bags (attributes, event data) may hold a field called trk_id that is no identifier. */
const freeForm = new Set(['attributes', 'data', 'relationship_attributes']);

/**
 * Every identifier object in a body (`primary`, `secondary`, `identifiers`), with `trk_id: "trk_<value>"`
 * rewritten as `cio_id: "<value>"`. The body has been validated, so a trk_id key outside a free-form bag
 * is always a person identifier.
 */
export function upstreamIdentifiers(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(upstreamIdentifiers);
  if (!body || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body as Record<string, unknown>).map(([key, value]) => {
      if (key === 'trk_id' && typeof value === 'string') return ['cio_id', trkValue(value) ?? value];
      return [key, freeForm.has(key) ? value : upstreamIdentifiers(value)];
    }),
  );
}
