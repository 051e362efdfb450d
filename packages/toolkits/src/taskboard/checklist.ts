/**
 * CreateChecklist: ClickUp creates a checklist and its items in separate calls. The tool takes both in
 * one body, creates the checklist with its name, then each item in order, and answers the checklist as
 * the last call left it. Should an item fail, the error says how far it got, so nothing is created twice.
 */
import { answerOfShape, callUpstream, parseRequestBody, type JsonSchema, type Tool, type ToolHandler } from '@quiver/core';

interface ChecklistBody {
  name: string;
  items?: Array<{ name: string; assignee?: number }>;
}

interface Checklist {
  id: string;
  name: string;
}

/** Both calls answer the checklist; its id is what the next call needs. */
const ANSWER_SHAPE: JsonSchema = {
  type: 'object',
  required: ['checklist'],
  properties: { checklist: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } } },
};

export function createChecklist(checklist: Tool): ToolHandler {
  // The second call, which no tool offers on its own.
  const addItem: Tool = {
    ...checklist,
    name: 'CreateChecklistItem',
    requestBody: undefined,
    http: { method: 'POST', path: '/v2/checklist/{checklist_id}/checklist_item', contentType: 'application/json' },
    parameters: [
      { name: 'checklist_id', description: 'Checklist id.', required: true, schema: { type: 'string' }, in: 'path' },
      { name: 'name', description: 'Item name.', required: true, schema: { type: 'string' }, in: 'body' },
      { name: 'assignee', description: 'User id.', required: false, schema: { type: 'integer' }, in: 'body' },
    ],
  };

  return async (args, context) => {
    const parsed = parseRequestBody(checklist, args);
    if ('error' in parsed) return parsed;
    const { name, items = [] } = parsed.body as ChecklistBody;
    const created = await callUpstream(checklist, args, context, { body: { name } });
    if ('error' in created) return created;
    const first = answerOfShape<{ checklist: Checklist }>(checklist, created.value, ANSWER_SHAPE);
    if ('error' in first) return first;
    let answer = first.value;
    for (const [index, item] of items.entries()) {
      const sent = await callUpstream(addItem, { checklist_id: answer.checklist.id, ...item }, context);
      const added = 'error' in sent ? sent : answerOfShape<{ checklist: Checklist }>(addItem, sent.value, ANSWER_SHAPE);
      if ('error' in added) {
        const done = `Checklist ${answer.checklist.id} ("${name}") was created with ${index} of ${items.length} items`;
        // An answer not understood still means the item was most likely added: say so, lest it be added twice.
        const what = 'error' in sent ? 'failed' : 'was sent, but its answer was not understood';
        return { error: { ...added.error, message: `${done}; item ${index + 1} ("${item.name}") ${what}: ${added.error.message}` } };
      }
      answer = added.value;
    }
    return { value: answer };
  };
}
