/**
 * ClickUp shapes that the structural schemas (catalog/schemas/TaskboardApi.json) do not give: the body
 * of CreateChecklist (the checklist and its items, which ClickUp creates in separate calls), the checklist
 * item call, and custom-field creation, which ClickUp's public v2 reference does not document. Both the
 * toolkit's generator and the emulator's use them, so the tool and the emulator agree.
 */
import type { JsonSchema } from '../../packages/core/src/tool.js';

/** Custom field types ClickUp knows (the `type` of a field). */
export const customFieldTypes = [
  'url',
  'drop_down',
  'labels',
  'email',
  'phone',
  'date',
  'short_text',
  'text',
  'checkbox',
  'number',
  'currency',
  'tasks',
  'users',
  'emoji',
  'automatic_progress',
  'manual_progress',
  'location',
];

const option: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1 }, color: { type: ['string', 'null'] } },
};

/** POST /v2/space/{space_id}/field: type-specific settings go in type_config. */
export const customFieldBody: JsonSchema = {
  type: 'object',
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1 },
    type: { type: 'string', enum: customFieldTypes },
    type_config: {
      type: 'object',
      properties: {
        options: { type: 'array', items: option },
        default: { type: 'integer' },
        placeholder: { type: 'string' },
        precision: { type: 'integer', minimum: 0, maximum: 8 },
        currency_type: { type: 'string', minLength: 3, maxLength: 3 },
        code_point: { type: 'string' },
        count: { type: 'integer', minimum: 1, maximum: 5 },
        start: { type: 'number' },
        end: { type: 'number' },
      },
    },
    required: { type: 'boolean' },
    hide_from_guests: { type: 'boolean' },
  },
};

export const customFieldResponse: JsonSchema = {
  type: 'object',
  required: ['field'],
  properties: {
    field: {
      type: 'object',
      required: ['id', 'name', 'type', 'type_config', 'date_created', 'hide_from_guests', 'required'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        type: { type: 'string' },
        type_config: {
          type: 'object',
          properties: {
            ...(customFieldBody.properties as { type_config: { properties: Record<string, JsonSchema> } }).type_config.properties,
            options: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'name', 'color', 'orderindex'],
                properties: { id: { type: 'string' }, name: { type: 'string' }, color: { type: ['string', 'null'] }, orderindex: { type: 'integer' } },
              },
            },
          },
        },
        date_created: { type: 'string' },
        hide_from_guests: { type: 'boolean' },
        required: { type: 'boolean' },
      },
    },
  },
};

/** POST /v2/checklist/{checklist_id}/checklist_item. */
export const checklistItemBody: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, assignee: { type: 'integer' } },
};

/** The checklist as the item call answers it: with every item so far. */
export const checklistWithItemsResponse: JsonSchema = {
  type: 'object',
  required: ['checklist'],
  properties: {
    checklist: {
      type: 'object',
      required: ['id', 'task_id', 'name', 'orderindex', 'resolved', 'unresolved', 'items'],
      properties: {
        id: { type: 'string' },
        task_id: { type: 'string' },
        name: { type: 'string' },
        orderindex: { type: 'integer' },
        resolved: { type: 'integer' },
        unresolved: { type: 'integer' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'name', 'orderindex', 'assignee', 'resolved', 'parent', 'date_created', 'children'],
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              orderindex: { type: 'integer' },
              assignee: { type: ['integer', 'null'] },
              resolved: { type: 'boolean' },
              parent: { type: ['string', 'null'] },
              date_created: { type: 'string' },
              children: { type: 'array', items: { type: 'string' } },
            },
          },
        },
      },
    },
  },
};

/** Most checklist items one CreateChecklist call creates (each is one upstream call). */
export const maxChecklistItems = 50;

/** CreateChecklist's own body: the checklist's name and the items to create in it, in order. */
export const checklistToolBody: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    items: {
      type: 'array',
      maxItems: maxChecklistItems,
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', minLength: 1 }, assignee: { type: 'integer' } },
      },
    },
  },
};
