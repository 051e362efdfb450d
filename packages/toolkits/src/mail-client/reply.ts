/** A reply to the sender, or to everyone on the message: one action each in Graph. */
import { callUpstream, type ToolHandler } from '@quiver/core';
import { binding, variant } from './bindings.js';

const reply = binding('ReplyToEmail');
const replyAll = variant(reply, { ...reply.http!, path: reply.http!.path.replace(/\/reply$/, '/replyAll') }, [
  { name: 'message_id', in: 'path', upstream: 'message-id' },
  { name: 'body', in: 'body', upstream: 'Comment' },
]);

export const replyToEmail: ToolHandler = async (args, context) => {
  const replyType = (args.reply_type as string | undefined) ?? 'reply';
  const result = await callUpstream(replyType === 'reply_all' ? replyAll : reply, args, context);
  if ('error' in result) return result;
  return { value: { replied: true, message_id: args.message_id, reply_type: replyType } };
};
