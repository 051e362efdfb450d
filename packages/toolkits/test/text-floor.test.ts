// The floor under every tool's text: what a model reads to pick a tool and fill its parameters.
import { describe, expect, it } from 'vitest';
import { toolkits } from '../src/index.js';

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const tools = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => ({ tool, name: `${toolkit.name}.${tool.name}` })));
const parameters = tools.flatMap(({ tool, name }) => tool.parameters.map((parameter) => ({ parameter, name: `${name}.${parameter.name}` })));

describe('text floor', () => {
  it('describes every tool in at least six words', () => {
    expect(tools.length).toBe(1007);
    const thin = tools.filter(({ tool }) => words(tool.description) < 6).map(({ name, tool }) => `${name}: ${tool.description}`);
    expect(thin).toEqual([]);
  });

  it('describes every parameter in at least four words', () => {
    expect(parameters.length).toBeGreaterThan(3000);
    const thin = parameters.filter(({ parameter }) => words(parameter.description) < 4).map(({ name, parameter }) => `${name}: ${parameter.description}`);
    expect(thin).toEqual([]);
  });

  it('declares allowed values as an enum, on the items for an array, never in prose', () => {
    const prose = parameters.filter(({ parameter }) => /\bOne of:/.test(parameter.description)).map(({ name }) => name);
    expect(prose).toEqual([]);
    const arrays = parameters.filter(({ parameter }) => parameter.schema.type === 'array');
    expect(arrays.length).toBeGreaterThan(0);
    expect(arrays.filter(({ parameter }) => parameter.schema.enum !== undefined).map(({ name }) => name)).toEqual([]);
    const enums = parameters.filter(({ parameter }) => Array.isArray(parameter.schema.enum));
    expect(enums.length).toBeGreaterThan(200);
    for (const { parameter, name } of enums) expect((parameter.schema.enum as unknown[]).length, name).toBeGreaterThan(0);
  });

  it('tells that an Enterprise Server administration tool is for site administrators', () => {
    const admin = toolkits
      .find((toolkit) => toolkit.name === 'RepoHostApi')!
      .tools.filter((tool) => /^\/(admin|enterprise|setup|manage)\//.test(tool.http!.path));
    expect(admin.length).toBeGreaterThan(20);
    for (const tool of admin) expect(tool.description, tool.name).toMatch(/administrator/i);
  });
});
