/**
 * Person profiles through the Track API: identify (add or update), delete, suppress and unsuppress.
 * Delete leaves the identifiers free, so new data recreates the person; suppress deletes and blocks
 * the identifiers until they are unsuppressed, and unsuppressing restores nothing.
 */
import { accepted, type Handler, type TrackContext } from './context.js';
import { linkAnonymousEvents } from './events.js';
import { linkAnonymousRelationships, objectFor, relate, unrelate, type ObjectIdentifiers } from './objects.js';
import { deletePerson, findPerson, identify, pathRef, refsOf, suppressIdentifiers, unsuppressIdentifier, type Person, type PersonRef } from './people.js';

export interface RelationshipInput {
  identifiers: ObjectIdentifiers;
  relationship_attributes?: Record<string, unknown>;
}

export interface ProfileFields {
  /** Attributes, identifiers among them (id, email), and the control fields of identify. */
  fields: Record<string, unknown>;
  addRelationships?: RelationshipInput[];
  deleteRelationships?: RelationshipInput[];
}

/**
 * Identify with everything an identify body may carry: `_update` (only update), `_timestamp` (when
 * the values were true; the emulator keeps no history), `anonymous_id` (attach that visitor's events
 * and relationships), relationships to objects, and the attributes themselves.
 */
export function identifyPerson(
  ctx: TrackContext,
  workspace: number,
  ref: PersonRef,
  { fields, addRelationships = [], deleteRelationships = [] }: ProfileFields,
): Person | undefined {
  const { id, email, anonymous_id: anonymousId, _update: updateOnly, _timestamp: _, ...attributes } = fields;
  const person = identify(ctx, workspace, ref, {
    ...(typeof id === 'string' && { id }),
    ...(typeof email === 'string' && { email }),
    attributes,
    updateOnly: updateOnly === true,
  });
  if (!person) return undefined;
  if (typeof anonymousId === 'string') {
    linkAnonymousEvents(ctx, workspace, anonymousId, person.cio_id);
    linkAnonymousRelationships(ctx, workspace, anonymousId, person.cio_id);
  }
  changeRelationships(ctx, workspace, person, addRelationships, deleteRelationships);
  return person;
}

export function changeRelationships(ctx: TrackContext, workspace: number, person: Person, add: RelationshipInput[], remove: RelationshipInput[]): void {
  for (const { identifiers, relationship_attributes } of add)
    relate(ctx, workspace, objectFor(ctx, workspace, identifiers), { person: person.cio_id }, relationship_attributes);
  for (const { identifiers } of remove) unrelate(ctx, workspace, objectFor(ctx, workspace, identifiers), person.cio_id);
}

/** Deletes the person if there is one; the identifiers stay free. */
export function deleteProfile(ctx: TrackContext, workspace: number, ref: PersonRef): void {
  const person = findPerson(ctx, workspace, ref);
  if (person) deletePerson(ctx, workspace, person);
}

/** Deletes the person and blocks every identifier they had (or the one given, when there is nobody). */
export function suppressProfile(ctx: TrackContext, workspace: number, ref: PersonRef): void {
  const person = findPerson(ctx, workspace, ref);
  if (person) deletePerson(ctx, workspace, person);
  suppressIdentifiers(ctx, workspace, person ? refsOf(person) : [ref]);
}

export function unsuppressProfile(ctx: TrackContext, workspace: number, ref: PersonRef): void {
  unsuppressIdentifier(ctx, workspace, ref);
}

export const profileHandlers: Record<string, Handler> = {
  identify: ({ params, body, workspace }, ctx) => {
    const { cio_relationships: relationships, ...fields } = body as Record<string, unknown>;
    const change = relationships as { action?: string; relationships?: RelationshipInput[] } | undefined;
    const listed = change?.relationships ?? [];
    identifyPerson(ctx, workspace, pathRef(params.identifier!), {
      fields,
      addRelationships: change?.action === 'delete_relationships' ? [] : listed,
      deleteRelationships: change?.action === 'delete_relationships' ? listed : [],
    });
    return accepted;
  },
  delete: ({ params, workspace }, ctx) => {
    deleteProfile(ctx, workspace, pathRef(params.identifier!));
    return accepted;
  },
  suppress: ({ params, workspace }, ctx) => {
    suppressProfile(ctx, workspace, pathRef(params.identifier!));
    return accepted;
  },
  unsuppress: ({ params, workspace }, ctx) => {
    unsuppressProfile(ctx, workspace, pathRef(params.identifier!));
    return accepted;
  },
};
