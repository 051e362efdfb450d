/** New messages: sent at once, or saved as a draft. */
import { callUpstream, type ToolHandler } from '@quiver/core';
import { binding } from './bindings.js';
import { recipients } from './recipients.js';

/** The tool's input with addresses as Graph recipients and the body type spelled out. */
const asMessage = (args: Record<string, unknown>) => ({
  ...args,
  body_type: args.body_type ?? 'text',
  to_recipients: recipients(args.to_recipients),
  cc_recipients: recipients(args.cc_recipients),
  bcc_recipients: recipients(args.bcc_recipients),
});

export const createAndSendEmail: ToolHandler = async (args, context) => {
  const result = await callUpstream(binding('CreateAndSendEmail'), asMessage(args), context);
  if ('error' in result) return result;
  // Graph accepts the message with an empty 202; say what was sent.
  const { subject, to_recipients, cc_recipients = [], bcc_recipients = [] } = args;
  return { value: { sent: true, subject, to_recipients, cc_recipients, bcc_recipients } };
};

export const createDraftEmail: ToolHandler = (args, context) => callUpstream(binding('CreateDraftEmail'), asMessage(args), context);
