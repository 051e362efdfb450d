/**
 * The v2 entity API: one operation on a person, an object or a delivery (POST /api/v2/entity), or
 * many in order (POST /api/v2/batch). Each runs the same rules as its v1 counterpart. A batch may be
 * at most 500 KB and each operation at most 32 KB; a failing operation fails the whole call, which
 * then changes nothing.
 */
import { accepted, badRequest, TrackError, type Handler, type TrackContext, type TrackRequest } from './context.js';
import { recordMetric } from './deliveries.js';
import { addDevice, removeDevice } from './devices.js';
import { trackPersonEvent } from './events.js';
import { mergePeople } from './merge.js';
import { deleteObject, findObject, objectFor, relate, setObjectAttributes, unrelate, type ObjectIdentifiers } from './objects.js';
import { objectRef, personFor } from './people.js';
import { changeRelationships, deleteProfile, identifyPerson, suppressProfile, unsuppressProfile, type RelationshipInput } from './profiles.js';

const BATCH_LIMIT = 500 * 1024;
const ENTITY_LIMIT = 32 * 1024;

type Entity = Record<string, any>;

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

function applyEntity(ctx: TrackContext, workspace: number, entity: Entity): void {
  if (entity.type === 'person') applyToPerson(ctx, workspace, entity);
  else if (entity.type === 'object') applyToObject(ctx, workspace, entity);
  else recordMetric(ctx, workspace, entity.identifiers.id, { metric: entity.name, device_token: entity.attributes.device_token });
}

function applyToPerson(ctx: TrackContext, workspace: number, entity: Entity): void {
  if (entity.action === 'merge') {
    mergePeople(ctx, workspace, objectRef(entity.primary), objectRef(entity.secondary));
    return;
  }
  const ref = objectRef(entity.identifiers);
  switch (entity.action) {
    case 'identify':
      identifyPerson(ctx, workspace, ref, { fields: entity.attributes ?? {}, addRelationships: entity.cio_relationships });
      return;
    case 'delete':
      deleteProfile(ctx, workspace, ref);
      return;
    case 'suppress':
      suppressProfile(ctx, workspace, ref);
      return;
    case 'unsuppress':
      unsuppressProfile(ctx, workspace, ref);
      return;
    case 'event':
    case 'screen':
      trackPersonEvent(ctx, workspace, ref, {
        name: entity.name,
        type: entity.action,
        id: entity.id,
        timestamp: entity.timestamp,
        data: entity.attributes,
      });
      return;
    case 'add_device':
      addDevice(ctx, workspace, ref, {
        id: entity.device.token,
        platform: entity.device.platform,
        last_used: entity.device.last_used,
        attributes: entity.device.attributes,
      });
      return;
    case 'delete_device':
      removeDevice(ctx, workspace, ref, entity.device.token);
      return;
    case 'add_relationships':
    case 'delete_relationships': {
      const person = personFor(ctx, workspace, ref);
      const listed = entity.cio_relationships as RelationshipInput[];
      if (person)
        changeRelationships(
          ctx,
          workspace,
          person,
          entity.action === 'add_relationships' ? listed : [],
          entity.action === 'delete_relationships' ? listed : [],
        );
      return;
    }
  }
}

interface PersonRelationship {
  identifiers?: Record<string, unknown>;
  relationship_attributes?: Record<string, unknown>;
}

function applyToObject(ctx: TrackContext, workspace: number, entity: Entity): void {
  const identifiers = entity.identifiers as ObjectIdentifiers;
  const relationships = (entity.cio_relationships ?? []) as PersonRelationship[];
  switch (entity.action) {
    case 'identify':
    case 'identify_anonymous': {
      const object = objectFor(ctx, workspace, identifiers);
      setObjectAttributes(ctx, workspace, object, entity.attributes ?? {});
      for (const { identifiers: who = {}, relationship_attributes: attributes } of relationships) {
        if (entity.action === 'identify_anonymous') {
          if (typeof who.anonymous_id === 'string') relate(ctx, workspace, object, { anonymousId: who.anonymous_id }, attributes ?? {});
          continue;
        }
        const person = personFor(ctx, workspace, objectRef(who));
        if (person) relate(ctx, workspace, object, { person: person.cio_id }, attributes ?? {});
      }
      return;
    }
    case 'delete':
      deleteObject(ctx, workspace, identifiers);
      return;
    case 'add_relationships':
    case 'delete_relationships': {
      const object = entity.action === 'add_relationships' ? objectFor(ctx, workspace, identifiers) : findObject(ctx, workspace, identifiers);
      if (!object) return;
      for (const { identifiers: who = {}, relationship_attributes: attributes } of relationships) {
        const person = personFor(ctx, workspace, objectRef(who));
        if (!person) continue;
        if (entity.action === 'add_relationships') relate(ctx, workspace, object, { person: person.cio_id }, attributes ?? {});
        else unrelate(ctx, workspace, object, person.cio_id);
      }
    }
  }
}

export const entityHandlers: Record<string, Handler> = {
  entity: ({ body, workspace }, ctx) => {
    if (size(body) > ENTITY_LIMIT) throw badRequest(`an entity request may be at most ${ENTITY_LIMIT} bytes`);
    applyEntity(ctx, workspace, body as Entity);
    return accepted;
  },
  batch: ({ body, workspace }: TrackRequest<{ batch?: Entity[] }>, ctx) => {
    if (size(body) > BATCH_LIMIT) throw new TrackError(413, `a batch may be at most ${BATCH_LIMIT} bytes`);
    const batch = body.batch ?? [];
    batch.forEach((entity, index) => {
      if (size(entity) > ENTITY_LIMIT) throw badRequest(`batch[${index}] is larger than ${ENTITY_LIMIT} bytes`, `batch[${index}]`);
      try {
        applyEntity(ctx, workspace, entity);
      } catch (error) {
        if (error instanceof TrackError)
          throw new TrackError(error.status, `batch[${index}]: ${error.message}`, `batch[${index}]${error.field ? `.${error.field}` : ''}`);
        throw error;
      }
    });
    return accepted;
  },
};
