// Titles and icons on served MCP tools: display fields for the person, given as the server can serve them.
import { describe, expect, it } from 'vitest';
import {
  defineToolkit,
  formatTool,
  iconDataUri,
  iconProblems,
  maxIconBytes,
  ServingPolicy,
  toMcpTool,
  withoutDisplayFields,
  type ToolData,
} from '../src/index.js';

const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="#123456"/><path d="M6 12h12" stroke="#fff"/></svg>';

const data = (name: string, title?: string): ToolData => ({
  name,
  ...(title && { title }),
  description: `${name} does one thing.`,
  parameters: [],
  output: { description: 'JSON.' },
  requirements: {},
  http: { method: 'GET', path: `/${name}` },
});

const things = defineToolkit({
  name: 'Things',
  version: '1.0.0',
  description: 'Things.',
  baseUrl: 'http://127.0.0.1:1',
  icon: svg,
  tools: [data('ListThings', 'List the things'), data('GetThing')],
});
const plain = defineToolkit({
  name: 'Plain',
  version: '1.0.0',
  description: 'Plain.',
  baseUrl: 'http://127.0.0.1:1',
  tools: [data('GetPlain', 'Get a plain')],
});
const [list, get] = things.tools as [(typeof things.tools)[0], (typeof things.tools)[0]];

describe('served MCP definitions', () => {
  it('carry the title of the data, and none made up from the name', () => {
    expect(toMcpTool(list)).toMatchObject({ name: 'Things_ListThings', title: 'List the things' });
    expect(toMcpTool(get)).not.toHaveProperty('title');
    expect(Object.keys(toMcpTool(list))).toEqual(['name', 'title', 'description', 'inputSchema', 'annotations', 'icons']);
  });

  it("give the toolkit's icon as a base64 data URI without a base URL, and as the engine's URL with one", () => {
    const [inline] = toMcpTool(list).icons!;
    expect(inline).toEqual({ src: iconDataUri(svg), mimeType: 'image/svg+xml', sizes: ['any'] });
    expect(Buffer.from(inline!.src.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8')).toBe(svg);
    expect(toMcpTool(list, { iconBaseUrl: 'https://quiver.example.com/v1/toolkits/' }).icons).toEqual([
      { src: 'https://quiver.example.com/v1/toolkits/Things/icon.svg', mimeType: 'image/svg+xml', sizes: ['any'] },
    ]);
    // A toolkit without an icon gets no icons field at all.
    expect(toMcpTool(plain.tools[0]!)).not.toHaveProperty('icons');
  });

  it('are shaped by the serving policy: URL icons with iconBaseUrl, data URIs without, for the listing and every narrowing', () => {
    const engine = new ServingPolicy({ iconBaseUrl: 'http://127.0.0.1:9099/v1/toolkits' });
    expect(engine.toMcpTool(list).icons![0]!.src).toBe('http://127.0.0.1:9099/v1/toolkits/Things/icon.svg');
    expect(engine.narrowed({ readOnly: true }).toMcpTool(list).icons![0]!.src).toBe('http://127.0.0.1:9099/v1/toolkits/Things/icon.svg');
    const stdio = new ServingPolicy();
    expect(stdio.toMcpTool(list).icons![0]!.src).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(stdio.toMcpTool(list).title).toBe('List the things');
    expect(formatTool(list, 'mcp')).toMatchObject({ title: 'List the things', icons: [{ mimeType: 'image/svg+xml' }] });
  });

  it('leave the display fields out of what the model reads, and out of the provider formats', () => {
    const served = new ServingPolicy().toMcpTool(list);
    const read = withoutDisplayFields(served);
    expect(read).not.toHaveProperty('title');
    expect(read).not.toHaveProperty('icons');
    expect(read).toEqual({ name: served.name, description: served.description, inputSchema: served.inputSchema, annotations: served.annotations });
    // The older revision's display name, in annotations, goes too; the hints stay.
    expect(withoutDisplayFields({ name: 'x', title: 'X', annotations: { title: 'X', readOnlyHint: true } })).toEqual({
      name: 'x',
      annotations: { readOnlyHint: true },
    });
    for (const format of ['openai', 'openai-strict', 'anthropic', 'gemini', 'arcade'] as const) {
      const text = JSON.stringify(formatTool(list, format));
      expect(text, format).not.toContain('List the things');
      expect(text, format).not.toContain('data:image');
    }
  });
});

describe('icon checks', () => {
  it('pass a plain icon', () => {
    expect(iconProblems(svg)).toEqual([]);
    expect(iconProblems('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24">\n  <g fill="none"><circle cx="12" cy="12" r="4"/></g>\n</svg>')).toEqual(
      [],
    );
  });

  it.each([
    ['a script', svg.replace('</svg>', '<script>alert(1)</script></svg>'), 'holds <script>'],
    ['an event attribute', svg.replace('<rect ', '<rect onload="alert(1)" '), 'has the attribute onload'],
    ['a link', svg.replace('<rect ', '<rect href="https://example.com/x" '), 'has the attribute href'],
    ['an image from elsewhere', svg.replace('</svg>', '<image href="https://example.com/x.png"/></svg>'), 'holds <image>'],
    ['foreign content', svg.replace('</svg>', '<foreignObject><div/></foreignObject></svg>'), 'holds <foreignObject>'],
    ['a style', svg.replace('<rect ', '<rect style="fill:url(https://example.com)" '), 'has the attribute style'],
    ['a url() reference', svg.replace('fill="#123456"', 'fill="url(https://example.com/#g)"'), 'holds a reference'],
    ['an entity or doctype', `<!DOCTYPE svg [<!ENTITY x "y">]>${svg}`, 'no plain element'],
    ['a comment', svg.replace('<rect', '<!-- hi --><rect'), 'no plain element'],
    ['an unclosed element', svg.replace('</svg>', ''), 'leaves <svg> open'],
    ['a closing tag that was never opened', svg.replace('</svg>', '</g></svg>'), 'closes <g>'],
    ['no namespace', svg.replace(' xmlns="http://www.w3.org/2000/svg"', ''), 'not in the SVG namespace'],
    ['no viewBox', svg.replace(' viewBox="0 0 24 24"', ''), 'no viewBox'],
    ['text', svg.replace('</svg>', 'hello</svg>'), 'holds text'],
    ['something other than svg', '<html xmlns="http://www.w3.org/2000/svg"></html>', 'not <svg>'],
    ['too many bytes', svg.replace('<path', `${'<g></g>'.repeat(200)}<path`), `more than ${maxIconBytes}`],
  ])('refuse %s', (_what, icon, problem) => {
    expect(iconProblems(icon).join('; ')).toContain(problem);
  });
});
