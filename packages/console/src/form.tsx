/**
 * A form generated from a JSON Schema: enums as choices, booleans, numbers, arrays (one item per line,
 * or JSON for arrays of objects), nested objects as fieldsets. Values stay as typed until `collect`
 * turns them into the input, naming each parameter that is wrong.
 */
import type { JSX } from 'preact';
import { typeOf, type JsonSchema } from './tool.js';

export type Values = Record<string, string>;

interface FieldProps {
  path: string;
  schema: JsonSchema;
  required: boolean;
  values: Values;
  onChange: (path: string, value: string) => void;
}

const idOf = (path: string) => `param-${path.replace(/[^A-Za-z0-9_-]/g, '_')}`;
const primaryType = (schema: JsonSchema) => (Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type);
const isObjectWithProperties = (schema: JsonSchema) => primaryType(schema) === 'object' && Object.keys(schema.properties ?? {}).length > 0;

export function SchemaFields({
  schema,
  values,
  onChange,
  omit = [],
  prefix = '',
}: {
  schema: JsonSchema;
  values: Values;
  onChange: FieldProps['onChange'];
  omit?: string[];
  prefix?: string;
}) {
  const required = new Set(schema.required ?? []);
  const properties = Object.entries(schema.properties ?? {}).filter(([name]) => !omit.includes(name));
  if (!properties.length && !prefix) return <p class="muted">This tool takes no parameters.</p>;
  return (
    <>
      {properties.map(([name, property]) => (
        <Field key={name} path={prefix + name} schema={property} required={required.has(name)} values={values} onChange={onChange} />
      ))}
    </>
  );
}

function Field({ path, schema, required, values, onChange }: FieldProps) {
  const id = idOf(path);
  const value = values[path] ?? '';
  const type = primaryType(schema);
  const label = (
    <span>
      {path.split('.').pop()}
      {required && <abbr title="required"> *</abbr>} <span class="muted">{typeOf(schema)}</span>
    </span>
  );
  const help = schema.description ? <small id={`${id}-help`}>{schema.description}</small> : null;
  const described = schema.description ? `${id}-help` : undefined;

  if (isObjectWithProperties(schema)) {
    return (
      <fieldset class="nested">
        <legend>{label}</legend>
        {help}
        <SchemaFields schema={schema} values={values} onChange={onChange} prefix={`${path}.`} />
      </fieldset>
    );
  }
  let control: JSX.Element;
  if (schema.enum) {
    control = (
      <select id={id} value={value} aria-describedby={described} onChange={(event) => onChange(path, event.currentTarget.value)}>
        <option value="">{required ? 'Choose…' : '(not set)'}</option>
        {schema.enum.map((option) => (
          <option key={String(option)} value={JSON.stringify(option)}>
            {String(option)}
          </option>
        ))}
      </select>
    );
  } else if (type === 'boolean') {
    control = (
      <select id={id} value={value} aria-describedby={described} onChange={(event) => onChange(path, event.currentTarget.value)}>
        <option value="">(not set)</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  } else if (type === 'array' || type === 'object') {
    const lines = type === 'array' && schema.items && ['string', 'number', 'integer'].includes(String(primaryType(schema.items)));
    control = (
      <textarea
        id={id}
        rows={3}
        value={value}
        aria-describedby={described}
        placeholder={lines ? 'one item per line' : 'JSON'}
        onInput={(event) => onChange(path, event.currentTarget.value)}
      />
    );
  } else {
    control = (
      <input
        id={id}
        type={type === 'number' || type === 'integer' ? 'number' : 'text'}
        step={type === 'integer' ? 1 : 'any'}
        value={value}
        aria-describedby={described}
        onInput={(event) => onChange(path, event.currentTarget.value)}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {help}
    </div>
  );
}

/** The input the form's values make, or the problems, each naming its parameter. */
export function collect(schema: JsonSchema, values: Values, omit: string[] = [], prefix = ''): { input: Record<string, unknown>; problems: string[] } {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (omit.includes(name)) continue;
    const path = prefix + name;
    if (isObjectWithProperties(property)) {
      // An optional object left wholly empty is left out; one begun must be whole.
      const touched = Object.entries(values).some(([key, value]) => key.startsWith(`${path}.`) && value.trim() !== '');
      if (!touched && !required.has(name)) continue;
      const nested = collect(property, values, [], `${path}.`);
      problems.push(...nested.problems);
      if (Object.keys(nested.input).length) input[name] = nested.input;
      else if (!nested.problems.length) problems.push(`${path} is required`);
      continue;
    }
    const raw = (values[path] ?? '').trim();
    if (!raw) {
      if (required.has(name)) problems.push(`${path} is required`);
      continue;
    }
    const parsed = parseValue(property, raw);
    if ('problem' in parsed) problems.push(`${path} ${parsed.problem}`);
    else input[name] = parsed.value;
  }
  return { input, problems };
}

function parseValue(schema: JsonSchema, raw: string): { value: unknown } | { problem: string } {
  if (schema.enum) return { value: JSON.parse(raw) as unknown };
  const type = primaryType(schema);
  if (type === 'boolean') return { value: raw === 'true' };
  if (type === 'integer' || type === 'number') {
    const number = Number(raw);
    if (!Number.isFinite(number) || (type === 'integer' && !Number.isInteger(number)))
      return { problem: `must be ${type === 'integer' ? 'an integer' : 'a number'}, got '${raw}'` };
    return { value: number };
  }
  if (type === 'array' && schema.items && ['string', 'number', 'integer'].includes(String(primaryType(schema.items)))) {
    const items = raw
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    const itemType = primaryType(schema.items);
    if (itemType === 'string') return { value: items };
    const numbers = items.map(Number);
    if (numbers.some((n) => !Number.isFinite(n))) return { problem: 'must list numbers, one per line' };
    return { value: numbers };
  }
  if (type === 'array' || type === 'object') {
    try {
      const value = JSON.parse(raw) as unknown;
      if (type === 'array' ? !Array.isArray(value) : value === null || typeof value !== 'object' || Array.isArray(value))
        return { problem: `must be a JSON ${type}` };
      return { value };
    } catch (error) {
      return { problem: `is not valid JSON: ${(error as Error).message}` };
    }
  }
  return { value: raw };
}
