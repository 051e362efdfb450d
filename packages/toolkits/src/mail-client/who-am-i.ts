/** The user's profile and mailbox settings: Graph serves the settings only when selected, so two reads. */
import { answerOfShape, callUpstream, type JsonSchema, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';

const profile = binding('WhoAmI');
const settings = variant(profile, profile.http!, [{ name: 'select', in: 'query', upstream: '$select' }]);

const PROFILE_SHAPE: JsonSchema = { type: 'object' };
const SETTINGS_SHAPE: JsonSchema = { type: 'object', properties: { mailboxSettings: { type: ['object', 'null'] } } };

export const whoAmI: ToolHandler = async (_args, context) => {
  const [user, mailbox] = await Promise.all([callUpstream(profile, {}, context), callUpstream(settings, { select: 'mailboxSettings' }, context)]);
  if ('error' in user) return user;
  if ('error' in mailbox) return mailbox;
  const person = answerOfShape<Record<string, unknown>>(profile, user.value, PROFILE_SHAPE);
  if ('error' in person) return person;
  const read = answerOfShape<{ mailboxSettings?: Record<string, unknown> | null }>(settings, mailbox.value, SETTINGS_SHAPE);
  if ('error' in read) return read;
  const { '@odata.context': _, ...fields } = person.value;
  const { automaticRepliesSetting, ...mailboxSettings } = read.value.mailboxSettings ?? {};
  return { value: { profile: fields, mailbox_settings: mailboxSettings, automatic_replies: automaticRepliesSetting ?? null } };
};
