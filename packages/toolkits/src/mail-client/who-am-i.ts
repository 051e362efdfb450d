/** The user's profile and mailbox settings: Graph serves the settings only when selected, so two reads. */
import { callUpstream, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';

const profile = binding('WhoAmI');
const settings = variant(profile, profile.http!, [{ name: 'select', in: 'query', upstream: '$select' }]);

export const whoAmI: ToolHandler = async (_args, context) => {
  const [user, mailbox] = await Promise.all([callUpstream(profile, {}, context), callUpstream(settings, { select: 'mailboxSettings' }, context)]);
  if ('error' in user) return user;
  if ('error' in mailbox) return mailbox;
  const { '@odata.context': _, ...fields } = user.value as Record<string, unknown>;
  const { automaticRepliesSetting, ...mailboxSettings } = ((mailbox.value as { mailboxSettings?: Record<string, unknown> }).mailboxSettings ?? {}) as Record<
    string,
    unknown
  >;
  return { value: { profile: fields, mailbox_settings: mailboxSettings, automatic_replies: automaticRepliesSetting ?? null } };
};
