/**
 * The filter of POST /contacts/search: a field, an operator and a value (or values), or `and` / `or`
 * over subfilters. Contacts have no time fields, so the time operators are refused.
 */
import { badRequest } from './context.js';

export interface Filter {
  field: string;
  operator: string;
  value?: string;
  values?: string[];
  subfilters?: Filter[];
}

/** The searchable fields of a contact, each read as its text values. */
export interface ContactFields {
  id: string;
  name: string;
  email: string | null;
  emails: string[];
  account_id: string | null;
}

const fields: Record<string, (contact: ContactFields) => string[]> = {
  id: (contact) => [contact.id],
  name: (contact) => [contact.name],
  email: (contact) => [...new Set([contact.email, ...contact.emails].filter((value): value is string => !!value))],
  account_id: (contact) => (contact.account_id ? [contact.account_id] : []),
};

/** Checks the whole filter once, so that a bad one is refused even when no contact exists. */
export function checkFilter(filter: Filter): void {
  if (filter.operator === 'and' || filter.operator === 'or') {
    if (!filter.subfilters?.length) throw badRequest(`filter operator ${filter.operator} needs subfilters`);
    filter.subfilters.forEach(checkFilter);
    return;
  }
  if (!fields[filter.field]) throw badRequest(`filter field ${filter.field} is not supported; use one of ${Object.keys(fields).join(', ')}`);
  if (filter.operator.startsWith('time_')) throw badRequest(`filter operator ${filter.operator} needs a time field; ${filter.field} is not one`);
  const needsValues = filter.operator === 'in' || filter.operator === 'not_in';
  const needsValue = !needsValues && filter.operator !== 'is_set' && filter.operator !== 'is_unset';
  if (needsValues && !filter.values) throw badRequest(`filter operator ${filter.operator} needs values`);
  if (needsValue && filter.value === undefined) throw badRequest(`filter operator ${filter.operator} needs a value`);
}

export function matches(filter: Filter, contact: ContactFields): boolean {
  if (filter.operator === 'and') return filter.subfilters!.every((sub) => matches(sub, contact));
  if (filter.operator === 'or') return filter.subfilters!.some((sub) => matches(sub, contact));
  // Names and email addresses compare without regard to case, as people type them.
  const have = fields[filter.field]!(contact).map((value) => value.toLowerCase());
  const value = filter.value?.toLowerCase() ?? '';
  const values = (filter.values ?? []).map((item) => item.toLowerCase());
  switch (filter.operator) {
    case 'equals':
      return have.includes(value);
    case 'not_equals':
      return !have.includes(value);
    case 'in':
      return have.some((item) => values.includes(item));
    case 'not_in':
      return !have.some((item) => values.includes(item));
    case 'contains':
    case 'string_contains':
      return have.some((item) => item.includes(value));
    case 'does_not_contain':
    case 'string_does_not_contain':
      return !have.some((item) => item.includes(value));
    case 'is_set':
      return have.length > 0;
    case 'is_unset':
      return have.length === 0;
    default:
      throw badRequest(`filter operator ${filter.operator} is not supported`);
  }
}
