import { badRequest, type Handler } from './context.js';
import { matchesFieldFilter, type FieldFilter } from './custom-fields.js';
import { requireList } from './lists.js';
import { fit, responseFields } from './table.js';
import { renderTask, type TaskRow } from './tasks.js';
import { statusesOf } from './workspace.js';

export const PAGE_SIZE = 100;

const orderColumns: Record<string, string> = { id: 'seq', created: 'created_at', updated: 'updated_at', due_date: 'due_date' };

const timeFilters: Array<[parameter: string, column: string, operator: '>' | '<']> = [
  ['due_date_gt', 'due_date', '>'],
  ['due_date_lt', 'due_date', '<'],
  ['date_created_gt', 'created_at', '>'],
  ['date_created_lt', 'created_at', '<'],
  ['date_updated_gt', 'updated_at', '>'],
  ['date_updated_lt', 'updated_at', '<'],
];

const listOf = (value: string | string[] | undefined): string[] | undefined => (value === undefined ? undefined : Array.isArray(value) ? value : [value]);
const flag = (value: string | string[] | undefined): boolean => value === 'true';

function fieldFilters(text: string | string[] | undefined): FieldFilter[] {
  if (typeof text !== 'string') return [];
  let filters: unknown;
  try {
    filters = JSON.parse(text);
  } catch {
    throw badRequest('FILTER_001', 'custom_fields must be a JSON array of filters');
  }
  if (!Array.isArray(filters) || filters.some((filter) => typeof filter?.field_id !== 'string' || typeof filter?.operator !== 'string')) {
    throw badRequest('FILTER_001', 'custom_fields must be a JSON array of objects with field_id and operator');
  }
  return filters as FieldFilter[];
}

export const taskListHandlers: Record<string, Handler> = {
  getTasks: ({ params, query, userId }, { db }) => {
    const { list, space } = requireList(db, params.list_id!, userId);
    const where = ['list_id = ?'];
    const values: unknown[] = [list.id];
    if (!flag(query.archived)) where.push('archived = 0');
    if (!flag(query.subtasks)) where.push('parent IS NULL');
    if (!flag(query.include_closed)) {
      const closed = statusesOf(space)
        .filter((status) => status.type === 'closed')
        .map((status) => status.status);
      if (closed.length) where.push(`status NOT IN (${closed.map(() => '?').join(', ')})`), values.push(...closed);
    }
    const statuses = listOf(query['statuses[]']);
    if (statuses) where.push(`lower(status) IN (${statuses.map(() => '?').join(', ')})`), values.push(...statuses.map((status) => status.toLowerCase()));
    const assignees = listOf(query['assignees[]']);
    if (assignees)
      where.push(`id IN (SELECT task_id FROM task_assignees WHERE user_id IN (${assignees.map(() => '?').join(', ')}))`), values.push(...assignees.map(Number));
    const tags = listOf(query['tags[]']);
    if (tags)
      where.push(`id IN (SELECT task_id FROM task_tags WHERE tag IN (${tags.map(() => '?').join(', ')}))`),
        values.push(...tags.map((tag) => tag.toLowerCase()));
    for (const [parameter, column, operator] of timeFilters) {
      if (typeof query[parameter] === 'string') where.push(`${column} IS NOT NULL AND ${column} ${operator} ?`), values.push(Number(query[parameter]));
    }

    const column = orderColumns[String(query.order_by ?? 'created')]!;
    const direction = flag(query.reverse) ? 'ASC' : 'DESC';
    // Tasks without a due date come last either way, as in ClickUp.
    const order = `${column} IS NULL, ${column} ${direction}, seq ${direction}`;
    const filters = fieldFilters(query.custom_fields);
    const matching = (db.prepare(`SELECT * FROM tasks WHERE ${where.join(' AND ')} ORDER BY ${order}`).all(...values) as TaskRow[]).filter((task) =>
      filters.every((filter) => matchesFieldFilter(db, task.id, filter)),
    );

    const page = Number(query.page ?? 0);
    const slice = matching.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    const fields = responseFields('getTasks', 'tasks');
    return {
      status: 200,
      body: { tasks: slice.map((task) => fit(renderTask(db, task, space), fields)), last_page: (page + 1) * PAGE_SIZE >= matching.length },
    };
  },
};
