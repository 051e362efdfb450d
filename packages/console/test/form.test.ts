/** The playground's input from a generated form, and the request-body check made before anything is sent. */
import { describe, expect, it } from 'vitest';
import { collect } from '../src/form.js';
import type { JsonSchema } from '../src/tool.js';
import { validate } from '../src/validate.js';

const schema: JsonSchema = {
  type: 'object',
  required: ['owner', 'count'],
  properties: {
    owner: { type: 'string' },
    count: { type: 'integer' },
    ratio: { type: 'number' },
    state: { type: 'string', enum: ['open', 'closed'] },
    draft: { type: 'boolean' },
    labels: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
    reviewers: { type: 'array', items: { type: 'object', properties: { login: { type: 'string' } } } },
    body: {
      type: 'object',
      required: ['title'],
      properties: { title: { type: 'string' }, meta: { type: 'object', properties: { lang: { type: 'string' } } } },
    },
    fields: { type: 'array', items: { type: 'string' } },
  },
};

describe('collect', () => {
  it('turns each kind of field into its JSON value, nested fields into objects, and leaves out what is not set', () => {
    const { input, problems } = collect(
      schema,
      {
        owner: ' octocat ',
        count: '3',
        ratio: '0.5',
        state: '"closed"',
        draft: 'false',
        labels: 'bug\n\n triage \n',
        ids: '1\n2',
        reviewers: '[{"login": "ada"}]',
        'body.title': 'Hello',
        'body.meta.lang': 'en',
        fields: 'ignored',
      },
      ['fields'],
    );
    expect(problems).toEqual([]);
    expect(input).toEqual({
      owner: 'octocat',
      count: 3,
      ratio: 0.5,
      state: 'closed',
      draft: false,
      labels: ['bug', 'triage'],
      ids: [1, 2],
      reviewers: [{ login: 'ada' }],
      body: { title: 'Hello', meta: { lang: 'en' } },
    });
  });

  it('names every parameter that is missing or wrong', () => {
    const { problems } = collect(schema, { count: '2.5', ids: '1\nx', reviewers: '{"login": 1}', 'body.meta.lang': 'en' });
    expect(problems).toEqual([
      'owner is required',
      "count must be an integer, got '2.5'",
      'ids must list numbers, one per line',
      'reviewers must be a JSON array',
      'body.title is required',
    ]);
    expect(collect(schema, { owner: 'a', count: '1', reviewers: '[{' }).problems).toEqual([expect.stringMatching(/^reviewers is not valid JSON: /)]);
  });
});

describe('validate', () => {
  const body: JsonSchema = {
    type: 'object',
    required: ['properties'],
    additionalProperties: false,
    properties: {
      properties: { type: 'object', additionalProperties: { type: 'string' } },
      inputs: {
        type: 'array',
        minItems: 1,
        maxItems: 2,
        items: { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[0-9a-f-]+$' } } },
      },
      kind: { enum: ['a', 'b'] },
      size: { type: 'integer', minimum: 1, maximum: 10 },
      name: { type: ['string', 'null'], minLength: 2 },
      either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    },
  };

  it('accepts a conforming body', () => {
    expect(validate(body, { properties: { hs_name: 'x' }, inputs: [{ id: 'ab-12' }], kind: 'a', size: 3, name: null, either: 4 })).toEqual([]);
  });

  it('names the JSON pointer of each fault', () => {
    expect(validate(body, { properties: { hs_name: 5 }, inputs: [], kind: 'c', size: 11, name: 'x', either: true, extra: 1 })).toEqual([
      { pointer: '/properties/hs_name', message: 'must be string, got number' },
      { pointer: '/inputs', message: 'must have at least 1 items' },
      { pointer: '/kind', message: 'must be one of "a", "b"' },
      { pointer: '/size', message: 'must be at most 10' },
      { pointer: '/name', message: 'must have at least 2 characters' },
      { pointer: '/either', message: 'matches none of the allowed shapes' },
      { pointer: '/extra', message: 'is not a known property' },
    ]);
    expect(validate(body, { inputs: [{ id: 'XYZ' }, {}, { id: 'a' }] })).toEqual([
      { pointer: '/properties', message: 'is required' },
      { pointer: '/inputs', message: 'must have at most 2 items' },
      { pointer: '/inputs/0/id', message: 'must match ^[0-9a-f-]+$' },
      { pointer: '/inputs/1/id', message: 'is required' },
    ]);
    expect(validate(body, [])).toEqual([{ pointer: '/', message: 'must be object, got an array' }]);
  });
});
