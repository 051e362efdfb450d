/** Comments: a comment pinned to a node, a reply, and the file's comments a page at a time. */
import { answerOfShape, callUpstream, toolError, type JsonSchema, type ToolHandler } from '@quiver/core';
import { binding } from './bindings.js';
import { normalizeNodeIds } from './node-ids.js';

export const addCommentOrReply: ToolHandler = async ({ node_id, x, y, ...args }, context) => {
  const tool = binding('AddCommentOrReply');
  // A reply sits where the comment it answers sits: Figma takes no position for it (spec 4.6).
  if (args.parent_comment_id !== undefined) return callUpstream(tool, args, context);
  if (node_id === undefined) {
    if (x === undefined && y === undefined) return callUpstream(tool, args, context);
    return toolError(
      'TOOL_RUNTIME_BAD_INPUT_VALUE',
      'Invalid input for AddCommentOrReply: x and y are an offset inside a node; give node_id with them, or leave them out.',
    );
  }
  const normalized = normalizeNodeIds('AddCommentOrReply', 'node_id', [node_id as string]);
  if ('error' in normalized) return normalized;
  return callUpstream(tool, { ...args, node_id: normalized.ids[0], x: x ?? 0, y: y ?? 0 }, context);
};

const DEFAULT_PAGE = 10;
const COMMENTS_SHAPE: JsonSchema = { type: 'object', required: ['comments'], properties: { comments: { type: 'array' } } };

/** Figma answers every comment of the file at once; the tool hands them out a page at a time. */
export const getComments: ToolHandler = async ({ file_key, offset = 0, max_items = DEFAULT_PAGE }, context) => {
  const tool = binding('GetComments');
  const result = await callUpstream(tool, { file_key }, context);
  if ('error' in result) return result;
  const answer = answerOfShape<{ comments: unknown[] }>(tool, result.value, COMMENTS_SHAPE);
  if ('error' in answer) return answer;
  const all = answer.value.comments;
  const start = offset as number;
  const end = start + (max_items as number);
  return {
    value: {
      comments: all.slice(start, end),
      total_count: all.length,
      offset: start,
      ...(end < all.length && { next_offset: end }),
    },
  };
};
