/**
 * One workspace of the emulator as its owner sees it: what Customer.io's UI and App API would set up
 * (segments, event-triggered campaigns, messages sent) and show (people and everything about them,
 * the activity log). The Track API itself only writes, so tests read its effects here.
 */
import { activitiesOf, type Activity } from './activities.js';
import { createCampaign, journeysOf, type Journey } from './campaigns.js';
import type { TrackContext } from './context.js';
import { createDelivery, deliveriesOf, findDelivery, metricsOf, type Delivery, type DeliveryMetric } from './deliveries.js';
import { devicesOf, type Device } from './devices.js';
import { anonymousEventsOf, eventsOf, type TrackedEvent } from './events.js';
import { formIds, submissionsTo, type FormSubmission } from './forms.js';
import { objectsOf, relationshipsOf, type Relationship, type TrackedObject } from './objects.js';
import { allPeople, findPerson, isSuppressed, pathRef, type Person } from './people.js';
import { createSegment, membersOf, segmentsOf, type SegmentType } from './segments.js';
import type { Workspace } from './workspaces.js';

/** Everything about one person. */
export interface PersonView extends Person {
  events: TrackedEvent[];
  devices: Device[];
  segments: number[];
  journeys: Journey[];
  deliveries: Delivery[];
  relationships: Relationship[];
}

export interface WorkspaceView extends Workspace {
  createSegment(name: string, type?: SegmentType): number;
  /** A campaign that an event named `triggerEvent` starts. */
  createCampaign(name: string, triggerEvent: string): number;
  /** Sends the person a message outside any campaign; answers its delivery id. */
  sendMessage(identifier: string): string;
  /** A person by path identifier (id, email, or cio_<value>). */
  person(identifier: string): PersonView | undefined;
  people(): Person[];
  anonymousEvents(anonymousId: string): TrackedEvent[];
  segmentMembers(segmentId: number): string[];
  delivery(deliveryId: string): (Delivery & { metrics: DeliveryMetric[] }) | undefined;
  isSuppressed(identifier: string): boolean;
  activities(): Activity[];
  objects(): TrackedObject[];
  forms(): string[];
  submissions(formId: string): FormSubmission[];
}

export function workspaceView(ctx: TrackContext, workspace: Workspace, inTransaction: <T>(work: () => T) => T): WorkspaceView {
  const id = workspace.environmentId;
  const person = (identifier: string): PersonView | undefined => {
    const found = findPerson(ctx, id, pathRef(identifier));
    if (!found) return undefined;
    const of = found.cio_id;
    return {
      ...found,
      events: eventsOf(ctx, id, of),
      devices: devicesOf(ctx, id, of),
      segments: segmentsOf(ctx, id, of),
      journeys: journeysOf(ctx, id, of),
      deliveries: deliveriesOf(ctx, id, of),
      relationships: relationshipsOf(ctx, id, of),
    };
  };
  return {
    ...workspace,
    createSegment: (name, type = 'manual') => inTransaction(() => createSegment(ctx, id, name, type)),
    createCampaign: (name, triggerEvent) => inTransaction(() => createCampaign(ctx, id, name, triggerEvent)),
    sendMessage(identifier) {
      const recipient = findPerson(ctx, id, pathRef(identifier));
      if (!recipient) throw new Error(`no person ${identifier} to send a message to`);
      return inTransaction(() => createDelivery(ctx, id, recipient.cio_id, null));
    },
    person,
    people: () => allPeople(ctx, id),
    anonymousEvents: (anonymousId) => anonymousEventsOf(ctx, id, anonymousId),
    segmentMembers: (segmentId) => membersOf(ctx, id, segmentId),
    delivery(deliveryId) {
      const delivery = findDelivery(ctx, id, deliveryId);
      return delivery && { ...delivery, metrics: metricsOf(ctx, id, deliveryId) };
    },
    isSuppressed: (identifier) => isSuppressed(ctx, id, pathRef(identifier)),
    activities: () => activitiesOf(ctx, id),
    objects: () => objectsOf(ctx, id),
    forms: () => formIds(ctx, id),
    submissions: (formId) => submissionsTo(ctx, id, formId),
  };
}
