import { defineToolkit } from '@quiver/core';
import { data } from './bindings.js';
import { createAndSendEmail, createDraftEmail } from './compose.js';
import { updateDraftEmail } from './drafts.js';
import { listEmails, listEmailsByProperty, listEmailsInFolder } from './listing.js';
import { replyToEmail } from './reply.js';
import { whoAmI } from './who-am-i.js';

/** Microsoft Graph mail for the signed-in user (`/me`); SendDraftEmail is a plain binding. */
export const mailClient = defineToolkit(data, {
  CreateAndSendEmail: createAndSendEmail,
  CreateDraftEmail: createDraftEmail,
  ListEmails: listEmails,
  ListEmailsByProperty: listEmailsByProperty,
  ListEmailsInFolder: listEmailsInFolder,
  ReplyToEmail: replyToEmail,
  UpdateDraftEmail: updateDraftEmail,
  WhoAmI: whoAmI,
});
