/**
 * Merging a duplicate (secondary) person into a primary one. The primary keeps what it has and gains
 * the attributes it has not set, the secondary's events of the last 30 days (which start no campaign),
 * manual segments, deliveries, relationships and the campaign journeys it has not entered; then the
 * secondary is deleted, and its identifiers go to the primary where the primary has none.
 */
import { mergeJourneys } from './campaigns.js';
import { accepted, badRequest, notFound, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { mergeDeliveries } from './deliveries.js';
import { mergeEvents } from './events.js';
import { mergeRelationships } from './objects.js';
import { deletePerson, findPerson, objectRef, savePerson, type PersonRef } from './people.js';
import { mergeMemberships } from './segments.js';

/** A person named by one identifier: `{ id }`, `{ email }` or `{ cio_id }`. */
type Identifiers = Record<string, unknown>;

const unset = (value: unknown) => value === undefined || value === null || value === '';

export function mergePeople(ctx: TrackContext, workspace: number, primaryRef: PersonRef, secondaryRef: PersonRef): void {
  const primary = findPerson(ctx, workspace, primaryRef);
  if (!primary) throw notFound(`primary person ${primaryRef.kind} ${primaryRef.value}`);
  const secondary = findPerson(ctx, workspace, secondaryRef);
  if (!secondary) throw notFound(`secondary person ${secondaryRef.kind} ${secondaryRef.value}`);
  if (primary.cio_id === secondary.cio_id) throw badRequest('primary and secondary are the same person', 'secondary');

  for (const [name, value] of Object.entries(secondary.attributes)) if (unset(primary.attributes[name])) primary.attributes[name] = value;
  for (const move of [mergeEvents, mergeMemberships, mergeJourneys, mergeDeliveries, mergeRelationships])
    move(ctx, workspace, secondary.cio_id, primary.cio_id);
  deletePerson(ctx, workspace, secondary);
  // Identifiers move only once the secondary no longer holds them.
  primary.id ??= secondary.id;
  primary.email ??= secondary.email;
  savePerson(ctx, workspace, primary);
}

export const mergeHandlers: Record<string, Handler> = {
  merge: ({ body, workspace }: TrackRequest<{ primary: Identifiers; secondary: Identifiers }>, ctx) => {
    mergePeople(ctx, workspace, objectRef(body.primary), objectRef(body.secondary));
    return accepted;
  },
};
