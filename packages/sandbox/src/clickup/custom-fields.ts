/**
 * Custom fields of a space: created with type-specific settings, given values when tasks are created
 * (each value checked against its field's type), shown on tasks, and matched by the task list's
 * custom-field filters.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { badRequest, type ClickupRequest, type Handler } from './context.js';
import { requireSpace } from './workspace.js';

export function createCustomFieldTables(db: Database.Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS custom_fields (
      id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, space_id TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
      type_config TEXT NOT NULL, required INTEGER NOT NULL, hide_from_guests INTEGER NOT NULL, created_at INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS task_field_values (task_id TEXT NOT NULL, field_id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (task_id, field_id));
  `);
}

interface FieldRow {
  id: string;
  space_id: string;
  name: string;
  type: string;
  type_config: string;
  required: number;
  hide_from_guests: number;
  created_at: number;
}

interface Option {
  id: string;
  name: string;
  color: string | null;
  orderindex: number;
}

type TypeConfig = { options?: Option[] } & Record<string, unknown>;

const numeric = new Set(['number', 'currency', 'emoji', 'manual_progress', 'automatic_progress']);
const withOptions = new Set(['drop_down', 'labels']);

/** What each type needs in type_config before ClickUp accepts the field. */
function checkTypeConfig(type: string, config: Record<string, unknown>): void {
  const need = (key: string) => {
    if (config[key] === undefined || (Array.isArray(config[key]) && !(config[key] as unknown[]).length)) {
      throw badRequest('FIELD_011', `type_config.${key} is required for ${type} fields`);
    }
  };
  if (withOptions.has(type)) need('options');
  if (type === 'currency') need('currency_type');
  if (type === 'emoji') need('code_point'), need('count');
  if (typeof config.start === 'number' && typeof config.end === 'number' && config.start >= config.end)
    throw badRequest('FIELD_012', 'type_config.start must be below type_config.end');
}

function render(field: FieldRow) {
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    type_config: JSON.parse(field.type_config) as TypeConfig,
    date_created: String(field.created_at),
    hide_from_guests: field.hide_from_guests === 1,
    required: field.required === 1,
  };
}

interface FieldInput {
  name: string;
  type: string;
  type_config?: Record<string, unknown>;
  required?: boolean;
  hide_from_guests?: boolean;
}

export const customFieldHandlers: Record<string, Handler> = {
  createCustomField: ({ params, body, userId }: ClickupRequest<FieldInput>, { db, clock }) => {
    const space = requireSpace(db, params.space_id!, userId);
    const name = String(body.name).trim();
    if (db.prepare('SELECT 1 FROM custom_fields WHERE space_id = ? AND lower(name) = lower(?)').get(space.id, name)) {
      throw badRequest('FIELD_010', `A field named "${name}" already exists in this space`);
    }
    const config = { ...body.type_config };
    checkTypeConfig(body.type, config);
    if (Array.isArray(config.options)) {
      config.options = (config.options as Array<{ name: string; color?: string | null }>).map((option, orderindex) => ({
        id: randomUUID(),
        name: option.name,
        color: option.color ?? null,
        orderindex,
      }));
    }
    const { seq } = db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM custom_fields').get() as { seq: number };
    const id = randomUUID();
    db.prepare(
      'INSERT INTO custom_fields (id, seq, space_id, name, type, type_config, required, hide_from_guests, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(id, seq, space.id, name, body.type, JSON.stringify(config), body.required ? 1 : 0, body.hide_from_guests ? 1 : 0, clock.now());
    return { status: 200, body: { field: render(db.prepare('SELECT * FROM custom_fields WHERE id = ?').get(id) as FieldRow) } };
  },
};

const fieldsOf = (db: Database.Database, spaceId: string): FieldRow[] =>
  db.prepare('SELECT * FROM custom_fields WHERE space_id = ? ORDER BY seq').all(spaceId) as FieldRow[];

/**
 * The values a new task is given, each checked against its field and stored in a canonical form: a number
 * for numeric fields and dates, an option id for drop-downs and labels, text otherwise.
 */
export function setFieldValues(
  db: Database.Database,
  spaceId: string,
  taskId: string,
  values: Array<{ id: string; value: number | string }>,
  checkRequired: boolean,
): void {
  const fields = new Map(fieldsOf(db, spaceId).map((field) => [field.id, field]));
  for (const { id, value } of values) {
    const field = fields.get(id);
    if (!field) throw badRequest('FIELD_033', `Custom field ${id} not found in this space`);
    db.prepare('INSERT OR REPLACE INTO task_field_values (task_id, field_id, value) VALUES (?, ?, ?)').run(taskId, id, JSON.stringify(canonical(field, value)));
  }
  if (checkRequired) {
    const given = new Set(values.map((entry) => entry.id));
    const missing = [...fields.values()].filter((field) => field.required === 1 && !given.has(field.id)).map((field) => field.name);
    if (missing.length) throw badRequest('FIELD_113', `Required custom fields have no value: ${missing.join(', ')}`);
  }
}

function canonical(field: FieldRow, value: number | string): number | string {
  const invalid = (what: string) => badRequest('FIELD_034', `Value for custom field "${field.name}" must be ${what}`);
  if (numeric.has(field.type) || field.type === 'date') {
    const number = typeof value === 'number' ? value : Number(value);
    if (String(value).trim() === '' || !Number.isFinite(number)) throw invalid(field.type === 'date' ? 'a Unix time in milliseconds' : 'a number');
    return number;
  }
  if (withOptions.has(field.type)) {
    const options = (JSON.parse(field.type_config) as TypeConfig).options ?? [];
    const option = options.find((candidate) => candidate.id === value || candidate.orderindex === value);
    if (!option) throw invalid(`an option id or orderindex of: ${options.map((o) => `${o.name} (${o.orderindex})`).join(', ')}`);
    return option.id;
  }
  if (field.type === 'checkbox') {
    if (!['true', 'false', 1, 0].includes(value)) throw invalid('true or false');
    return value === 'true' || value === 1 ? 'true' : 'false';
  }
  if (field.type === 'email' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(String(value))) throw invalid('an email address');
  if (field.type === 'url' && !URL.canParse(String(value))) throw invalid('a URL');
  return String(value);
}

/** A task's fields as ClickUp shows them: every field of the space, with the task's value where set. */
export function taskFields(db: Database.Database, spaceId: string, taskId: string) {
  const values = storedValues(db, taskId);
  return fieldsOf(db, spaceId).map((field) => {
    const value = values.get(field.id);
    return {
      id: field.id,
      name: field.name,
      type: field.type,
      // Task records carry only the user-field settings of type_config; the options are on the field.
      type_config: {},
      date_created: String(field.created_at),
      hide_from_guests: field.hide_from_guests === 1,
      required: field.required === 1,
      ...(value !== undefined && { value: { value: shown(field, value) } }),
    };
  });
}

function shown(field: FieldRow, value: number | string): string {
  if (!withOptions.has(field.type)) return String(value);
  return (JSON.parse(field.type_config) as TypeConfig).options?.find((option) => option.id === value)?.name ?? String(value);
}

function storedValues(db: Database.Database, taskId: string): Map<string, number | string> {
  const rows = db.prepare('SELECT field_id, value FROM task_field_values WHERE task_id = ?').all(taskId) as Array<{ field_id: string; value: string }>;
  return new Map(rows.map((row) => [row.field_id, JSON.parse(row.value) as number | string]));
}

export interface FieldFilter {
  field_id: string;
  operator: string;
  value?: unknown;
}

/** Whether a task passes one custom-field filter of the task list. */
export function matchesFieldFilter(db: Database.Database, taskId: string, filter: FieldFilter): boolean {
  const field = db.prepare('SELECT * FROM custom_fields WHERE id = ?').get(filter.field_id) as FieldRow | undefined;
  const value = storedValues(db, taskId).get(filter.field_id);
  if (filter.operator === 'IS NULL') return value === undefined;
  if (filter.operator === 'IS NOT NULL') return value !== undefined;
  if (value === undefined || !field) return false;
  // Filter values are compared in the stored form: options by id (or orderindex), numbers as numbers.
  const comparable = (given: unknown): number | string => {
    if (withOptions.has(field.type)) {
      const options = (JSON.parse(field.type_config) as TypeConfig).options ?? [];
      return options.find((option) => option.id === given || option.orderindex === Number(given))?.id ?? String(given);
    }
    return typeof value === 'number' ? Number(given) : String(given);
  };
  const list = (Array.isArray(filter.value) ? filter.value : [filter.value]).map(comparable);
  const target = comparable(filter.value);
  switch (filter.operator) {
    case '=':
      return value === target;
    case '!=':
      return value !== target;
    case '<':
      return value < target;
    case '<=':
      return value <= target;
    case '>':
      return value > target;
    case '>=':
      return value >= target;
    case 'RANGE':
      return list.length === 2 && value >= list[0]! && value <= list[1]!;
    case 'ANY':
    case 'ALL':
      // A task holds one value per field, so "all of" can only hold for a single-item list.
      return filter.operator === 'ANY' ? list.includes(value) : list.every((item) => item === value);
    case 'NOT ANY':
      return !list.includes(value);
    case 'NOT ALL':
      return !list.every((item) => item === value);
    default:
      throw badRequest('FILTER_002', `Unknown custom field operator ${JSON.stringify(filter.operator)}`);
  }
}
