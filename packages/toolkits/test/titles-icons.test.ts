// What a person sees of each tool in a client: its title, and its toolkit's icon, as every built-in tool is served.
import { iconDataUri, iconProblems, maxIconBytes, ServingPolicy } from '@quiver/core';
import { describe, expect, it } from 'vitest';
import { toolkits } from '../src/index.js';

const tools = toolkits.flatMap((toolkit) => toolkit.tools.map((tool) => ({ tool, name: `${toolkit.name}.${tool.name}` })));
const served = tools.map(({ tool, name }) => ({ name, definition: new ServingPolicy().toMcpTool(tool) }));
/** The name in words, the way a client would show a tool without a title: `ListPullRequests` → `listpullrequests`. */
const spelled = (text: string) => text.replace(/[^A-Za-z0-9]/g, '').toLowerCase();

describe('titles', () => {
  it('every served tool has a title that is more than its name in words', () => {
    expect(served).toHaveLength(1007);
    const missing = served.filter(({ definition }) => typeof definition.title !== 'string' || !definition.title.trim()).map(({ name }) => name);
    expect(missing).toEqual([]);
    const spelledOut = served.filter(({ definition }) => spelled(definition.title!) === spelled(definition.name.split('_').slice(1).join('')));
    expect(spelledOut.map(({ name, definition }) => `${name}: ${definition.title}`)).toEqual([]);
  });

  it('are short sentence-case labels, without a closing full stop', () => {
    const bad = tools.filter(({ tool }) => !/^[A-Z0-9][^\n]{2,79}$/.test(tool.title!) || /[.\s]$/.test(tool.title!));
    expect(bad.map(({ name, tool }) => `${name}: ${tool.title}`)).toEqual([]);
    // Sentence case: after the first word, a capital starts only a name or an acronym (GitHub, SSH, Dependabot, ...).
    const titleCase = tools.filter(({ tool }) => tool.title!.split(' ').length > 3 && tool.title!.split(' ').every((word) => /^[A-Z(]/.test(word)));
    expect(titleCase.map(({ name, tool }) => `${name}: ${tool.title}`)).toEqual([]);
  });

  it('tell every built-in tool apart', () => {
    const byTitle = new Map<string, string[]>();
    for (const { tool, name } of tools) byTitle.set(tool.title!.toLowerCase(), [...(byTitle.get(tool.title!.toLowerCase()) ?? []), name]);
    expect([...byTitle.values()].filter((names) => names.length > 1)).toEqual([]);
  });

  it("come from GitHub's operation summaries for RepoHostApi", () => {
    const title = (name: string) => tools.find((entry) => entry.name === `RepoHostApi.${name}`)!.tool.title;
    expect(title('CreateRepohostIssue')).toBe('Create an issue');
    // A summary that several operations share says which, as the description does.
    expect(title('GetRepoSecretInfo')).toBe('Get a repository secret (Dependabot)');
    // One that is the name in words says what the tool acts on.
    expect(title('ListPullRequests')).toBe('List pull requests on a repository');
  });
});

describe('icons', () => {
  it('every toolkit has its own icon: plain, valid SVG of at most 1 KB', () => {
    expect(toolkits).toHaveLength(10);
    for (const toolkit of toolkits) {
      expect(toolkit.icon, toolkit.name).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="[^"]+">.*<\/svg>$/s);
      expect(iconProblems(toolkit.icon!), toolkit.name).toEqual([]);
      expect(Buffer.byteLength(toolkit.icon!), toolkit.name).toBeLessThanOrEqual(maxIconBytes);
    }
    expect(new Set(toolkits.map((toolkit) => toolkit.icon)).size).toBe(toolkits.length);
  });

  it("every served tool carries its toolkit's icon, as a data URI where no base URL is given", () => {
    for (const [index, { name, definition }] of served.entries()) {
      expect(definition.icons, name).toEqual([{ src: iconDataUri(tools[index]!.tool.toolkit.icon!), mimeType: 'image/svg+xml', sizes: ['any'] }]);
    }
    const byUrl = new ServingPolicy({ iconBaseUrl: 'https://quiver.example.com/v1/toolkits' });
    expect(byUrl.toMcpTool(tools[0]!.tool).icons).toEqual([
      { src: `https://quiver.example.com/v1/toolkits/${tools[0]!.tool.toolkit.name}/icon.svg`, mimeType: 'image/svg+xml', sizes: ['any'] },
    ]);
  });
});
