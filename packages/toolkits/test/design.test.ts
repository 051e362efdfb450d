/**
 * End-to-end tests of every Design tool through the core Runtime against the Figma emulator (which checks
 * each request against Figma's published description): node ids in both forms, depth, exports with their
 * temporary URLs, comments and replies, file and team libraries with paging, and the limits of spec part 8.
 * The last test checks that all 15 tools were called successfully.
 */
import { readFileSync } from 'node:fs';
import { createClock, sampleFile, startFigmaEmulator, type FigmaEmulator } from '@quiver/sandbox';
import { design } from '@quiver/toolkits';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolClient } from './tool-client.helpers.js';

const catalog = JSON.parse(readFileSync(new URL('../src/design/catalog.json', import.meta.url), 'utf8')) as {
  tools: Array<{ name: string; parameters: Array<{ name: string }>; requirements: { oauth2: { provider: string; scopes: string[] } } }>;
};

const DAY = 86_400_000;
const START = Date.UTC(2025, 2, 3, 9);
const covered = new Set<string>();
let emulator: FigmaEmulator;
const designer = new ToolClient(design, { upstream: () => emulator, token: 'designer-token', covered, verbose: true });

beforeAll(async () => {
  emulator = await startFigmaEmulator({ clock: createClock(START) });
  emulator.issueToken('designer-token');
});

afterAll(async () => {
  await emulator?.close();
});

/** Team 77 with project 88 holding two files; a second team with one file (so team listings stay apart). */
beforeEach(() => {
  emulator.reset();
  emulator.clock.set(START);
  emulator.seed({
    team: { id: '77', name: 'Product Design' },
    project: { id: '88', name: 'App' },
    files: [sampleFile('FILEA', 'Checkout'), sampleFile('FILEB', 'Onboarding')],
    publisherToken: 'publisher-token',
  });
  emulator.seed({
    team: { id: '99', name: 'Marketing' },
    project: { id: '98', name: 'Campaigns' },
    files: [sampleFile('FILEC', 'Spring')],
    publisherToken: 'publisher-token',
  });
});

const lastRequest = () => emulator.requests.at(-1)!;

describe('files, pages and nodes', () => {
  it('GetFile returns the whole tree, or pages only at depth 1, or pages and top-level frames at depth 2', async () => {
    const full = await designer.call('GetFile', { file_key: 'FILEA' });
    expect(full).toMatchObject({ name: 'Checkout', version: '1', editorType: 'figma', role: 'editor' });
    expect(full.document.children.map((page: any) => page.name)).toEqual(['Cover', 'Components']);
    expect(full.document.children[0].children[0].children.map((node: any) => node.characters)).toEqual([
      'Design systems that ship',
      'From Figma to production',
    ]);
    expect(Object.keys(full.components).sort()).toEqual(['2:1', '2:4', '2:5']);
    expect(full.components['2:1'].key).toBe('FILEA-button');

    const pages = await designer.call('GetFile', { file_key: 'FILEA', depth: 1 });
    expect(lastRequest().query).toEqual({ depth: '1' });
    expect(pages.document.children.map((page: any) => [page.id, page.children])).toEqual([
      ['0:1', []],
      ['2:0', []],
    ]);

    const frames = await designer.call('GetFile', { file_key: 'FILEA', depth: 2 });
    expect(frames.document.children[0].children.map((node: any) => [node.name, node.children])).toEqual([
      ['Hero', []],
      ['Footer', []],
    ]);
  });

  it('GetFile of an unknown file is not found', async () => {
    const error = await designer.fail('GetFile', { file_key: 'NOPE' });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 });
  });

  it('GetPages lists page ids and names, asking Figma for depth 1 only', async () => {
    const { result, sent } = await designer.sentDuring(() => designer.call('GetPages', { file_key: 'FILEB' }));
    // The emulator's clock runs on from START, so the seed time is START to the second.
    expect(result).toEqual({
      name: 'Onboarding',
      version: '1',
      lastModified: expect.stringMatching(/^2025-03-03T09:00:00/),
      pages: [
        { id: '0:1', name: 'Cover' },
        { id: '2:0', name: 'Components' },
      ],
    });
    expect(sent.map((request) => [request.path, request.query])).toEqual([['/v1/files/FILEB', { depth: '1' }]]);
  });

  it('GetFileNodes takes ids in both forms, sends the colon form, and answers a compact outline', async () => {
    const { result, sent } = await designer.sentDuring(() => designer.call('GetFileNodes', { file_key: 'FILEA', node_ids: ['1-2', '2:1'] }));
    expect(sent[0]!.query).toEqual({ ids: '1:2,2:1' });
    expect(result.name).toBe('Checkout');
    expect(result.nodes['1:2']).toEqual({
      id: '1:2',
      name: 'Hero',
      type: 'FRAME',
      x: 0,
      y: 0,
      width: 1440,
      height: 900,
      children: [
        { id: '1:3', name: 'Headline', type: 'TEXT', x: 120, y: 200, width: 320, height: 40, characters: 'Design systems that ship' },
        { id: '1:4', name: 'Tagline', type: 'TEXT', x: 120, y: 260, width: 320, height: 40, characters: 'From Figma to production' },
      ],
    });
    expect(result.nodes['2:1'].children.map((child: any) => child.characters)).toEqual(['Continue']);
  });

  it('GetFileNodes depth 1 keeps direct children only; raw data is Figma’s full JSON; unknown ids map to null', async () => {
    const shallow = await designer.call('GetFileNodes', { file_key: 'FILEA', node_ids: ['2:0'], depth: 1 });
    expect(shallow.nodes['2:0'].children.map((child: any) => [child.id, child.children ?? 'leaf'])).toEqual([
      ['2:1', []],
      ['2:3', []],
      ['2:6', 'leaf'],
    ]);

    const raw = await designer.call('GetFileNodes', { file_key: 'FILEA', node_ids: ['2-1', '9:9'], include_raw_data: true });
    expect(raw.nodes['2:1'].document).toMatchObject({ id: '2:1', type: 'COMPONENT', fills: [{ type: 'SOLID', color: { r: 0.2, g: 0.6, b: 0.3, a: 1 } }] });
    expect(raw.nodes['2:1'].components['2:1'].key).toBe('FILEA-button');
    expect(raw.nodes['9:9']).toBeNull();
    expect(raw.role).toBe('editor');
  });

  it('a node id that is neither form is refused before sending', async () => {
    const error = await designer.refuse('GetFileNodes', { file_key: 'FILEA', node_ids: ['1:2', 'hero'] });
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(/parameter 'node_ids' has 'hero', which is not a Figma node id/);
  });
});

describe('teams and projects', () => {
  it('GetTeamProjects and GetProjectFiles list what the team holds', async () => {
    expect(await designer.call('GetTeamProjects', { team_id: '77' })).toEqual({ name: 'Product Design', projects: [{ id: '88', name: 'App' }] });
    const files = await designer.call('GetProjectFiles', { project_id: '88' });
    expect(files.name).toBe('App');
    expect(files.files.map((file: any) => [file.key, file.name])).toEqual([
      ['FILEA', 'Checkout'],
      ['FILEB', 'Onboarding'],
    ]);
    expect((await designer.fail('GetTeamProjects', { team_id: '12345' })).kind).toBe('UPSTREAM_RUNTIME_NOT_FOUND');
  });

  it('WhoAmI answers the token’s user', async () => {
    const me = await designer.call('WhoAmI');
    expect(me).toEqual(emulator.userFor('designer-token'));
    expect(me.email).toMatch(/@example\.com$/);
    const other = new ToolClient(design, { upstream: () => emulator, token: emulator.issueToken('someone-else'), covered, verbose: true });
    expect((await other.call('WhoAmI')).id).not.toBe(me.id);
  });
});

describe('image exports', () => {
  async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
    const response = await fetch(url);
    return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it('exports PNG by default at the node’s size, on a temporary URL of the image host', async () => {
    const { result, sent } = await designer.sentDuring(() => designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['1-2', '0:1', '8:8'] }));
    expect(sent[0]!.query).toEqual({ ids: '1:2,0:1,8:8' });
    expect(result.err).toBeNull();
    // A page has no bounds to render and 8:8 does not exist: both map to null, as in Figma.
    expect(result.images['0:1']).toBeNull();
    expect(result.images['8:8']).toBeNull();
    expect(result.images['1:2'].startsWith(`${emulator.imagesUrl}/images/`)).toBe(true);

    const image = await download(result.images['1:2']);
    expect(image.status).toBe(200);
    expect(image.type).toBe('image/png');
    expect(image.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect([image.bytes.readUInt32BE(16), image.bytes.readUInt32BE(20)]).toEqual([1440, 900]);
  });

  it('scales JPG and PNG exports from 0.01 to 4', async () => {
    const jpg = await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['2:1'], image_format: 'jpg', scale: 2.5 });
    expect(lastRequest().query).toEqual({ ids: '2:1', format: 'jpg', scale: '2.5' });
    const bytes = (await download(jpg.images['2:1'])).bytes;
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
    expect([bytes.readUInt16BE(sof + 7), bytes.readUInt16BE(sof + 5)]).toEqual([400, 120]); // 160x48 at 2.5

    const tiny = await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['1:2'], scale: 0.01 });
    const png = (await download(tiny.images['1:2'])).bytes;
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([14, 9]);
    await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['1:2'], scale: 4 });

    for (const scale of [0, 0.001, 4.5]) {
      const error = await designer.refuse('ExportImage', { file_key: 'FILEA', node_ids: ['1:2'], scale });
      expect(error.message).toMatch(/parameter 'scale' must be (>=|<=)/);
    }
  });

  it('exports SVG and PDF as vector files at the node’s size; a scale with them is refused before sending', async () => {
    const svg = await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['1:5'], image_format: 'svg' });
    const svgFile = await download(svg.images['1:5']);
    expect(svgFile.type).toBe('image/svg+xml');
    expect(svgFile.bytes.toString()).toMatch(/^<svg [^>]*width="1440" height="200"[^>]*><title>Footer<\/title>/);

    const pdf = await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['1:5'], image_format: 'pdf' });
    const pdfFile = await download(pdf.images['1:5']);
    expect(pdfFile.type).toBe('application/pdf');
    expect(pdfFile.bytes.toString('latin1')).toMatch(/^%PDF-1\.4[\s\S]*\/MediaBox \[0 0 1440 200\][\s\S]*%%EOF\n$/);

    for (const image_format of ['svg', 'pdf']) {
      const error = await designer.refuse('ExportImage', { file_key: 'FILEA', node_ids: ['1:5'], image_format, scale: 2 });
      expect(error).toMatchObject({
        kind: 'TOOL_RUNTIME_BAD_INPUT_VALUE',
        message: expect.stringContaining(`scale applies only to png and jpg exports; leave it out for ${image_format}`),
      });
    }
  });

  it('export URLs serve the image for about 14 days, then expire', async () => {
    const { images } = await designer.call('ExportImage', { file_key: 'FILEA', node_ids: ['2:1'] });
    emulator.clock.advance(14 * DAY - 60_000);
    expect((await download(images['2:1'])).status).toBe(200);
    emulator.clock.advance(60_000);
    const expired = await download(images['2:1']);
    expect(expired.status).toBe(403);
    expect(expired.bytes.toString()).toContain('<Code>AccessDenied</Code>');
  });
});

describe('comments and replies', () => {
  it('pins a top-level comment to a node given in either form, at an offset that defaults to 0', async () => {
    const { result: pinned, sent } = await designer.sentDuring(() =>
      designer.call('AddCommentOrReply', { file_key: 'FILEA', message: 'Tighten the headline', node_id: '1-3', x: 12.5 }),
    );
    expect(sent[0]!.body).toEqual({ message: 'Tighten the headline', client_meta: { node_id: '1:3', node_offset: { x: 12.5, y: 0 } } });
    expect(pinned).toMatchObject({
      message: 'Tighten the headline',
      file_key: 'FILEA',
      order_id: '1',
      client_meta: { node_id: '1:3', node_offset: { x: 12.5, y: 0 } },
    });
    expect(pinned.user.id).toBe(emulator.userFor('designer-token').id);

    const loose = await designer.call('AddCommentOrReply', { file_key: 'FILEA', message: 'Looks good overall' });
    expect(lastRequest().body).toEqual({ message: 'Looks good overall' });
    expect(loose.order_id).toBe('2');
  });

  it('a reply answers a top-level comment, sits where it sits, and ignores node and offset', async () => {
    const top = await designer.call('AddCommentOrReply', { file_key: 'FILEA', message: 'Which font?', node_id: '1:4', x: 1, y: 2 });
    const { result: reply, sent } = await designer.sentDuring(() =>
      designer.call('AddCommentOrReply', { file_key: 'FILEA', message: 'Inter', parent_comment_id: top.id, node_id: '1:2', x: 5, y: 5 }),
    );
    expect(sent[0]!.body).toEqual({ message: 'Inter', comment_id: top.id });
    expect(reply).toMatchObject({ parent_id: top.id, order_id: null, client_meta: top.client_meta });

    const nested = await designer.fail('AddCommentOrReply', { file_key: 'FILEA', message: 'Nested', parent_comment_id: reply.id });
    expect(nested).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST', status_code: 400 });
    // Figma words its errors as `{ status, err }`; the text reaches the developer message.
    expect(nested.developer_message).toMatch(/root comment/);
    expect((await designer.fail('AddCommentOrReply', { file_key: 'FILEA', message: 'Lost', parent_comment_id: '999' })).kind).toBe(
      'UPSTREAM_RUNTIME_NOT_FOUND',
    );
  });

  it('x and y without node_id are refused before sending; a node the file lacks is refused by Figma', async () => {
    for (const offset of [{ x: 3 }, { y: 4 }, { x: 3, y: 4 }]) {
      const error = await designer.refuse('AddCommentOrReply', { file_key: 'FILEA', message: 'Where?', ...offset });
      expect(error.message).toMatch(/x and y are an offset inside a node; give node_id with them/);
    }
    const error = await designer.fail('AddCommentOrReply', { file_key: 'FILEA', message: 'Here', node_id: '7:7' });
    expect(error).toMatchObject({ kind: 'UPSTREAM_RUNTIME_BAD_REQUEST' });
    expect(error.developer_message).toMatch(/not a node of this file/);
  });

  it('GetComments pages through comments and replies: 10 by default, 1 to 50 per page', async () => {
    const top = await designer.call('AddCommentOrReply', { file_key: 'FILEB', message: 'Comment 1' });
    for (let n = 2; n <= 11; n++) await designer.call('AddCommentOrReply', { file_key: 'FILEB', message: `Comment ${n}` });
    await designer.call('AddCommentOrReply', { file_key: 'FILEB', message: 'Reply', parent_comment_id: top.id });

    const first = await designer.call('GetComments', { file_key: 'FILEB' });
    expect(first).toMatchObject({ total_count: 12, offset: 0, next_offset: 10 });
    expect(first.comments).toHaveLength(10);
    expect(first.comments[0]).toMatchObject({ message: 'Reply', parent_id: top.id });
    const rest = await designer.call('GetComments', { file_key: 'FILEB', offset: first.next_offset });
    expect(rest.comments.map((comment: any) => comment.message)).toEqual(['Comment 2', 'Comment 1']);
    expect(rest.next_offset).toBeUndefined();
    expect((await designer.call('GetComments', { file_key: 'FILEB', max_items: 50 })).comments).toHaveLength(12);
    expect((await designer.call('GetComments', { file_key: 'FILEB', max_items: 1, offset: 11 })).comments.map((c: any) => c.message)).toEqual(['Comment 1']);
    expect((await designer.call('GetComments', { file_key: 'FILEA' })).comments).toEqual([]);

    for (const max_items of [0, 51])
      expect((await designer.refuse('GetComments', { file_key: 'FILEB', max_items })).message).toMatch(/parameter 'max_items' must be/);
    expect((await designer.refuse('GetComments', { file_key: 'FILEB', offset: -1 })).message).toMatch(/parameter 'offset' must be >= 0/);
  });
});

describe('components, component sets and styles', () => {
  const kinds = [
    {
      list: 'GetComponents',
      field: 'components',
      get: 'GetComponent',
      param: 'component_key',
      fileKeys: ['FILEA-button', 'FILEA-badge-info', 'FILEA-badge-warning'],
    },
    { list: 'GetComponentSets', field: 'component_sets', get: 'GetComponentSet', param: 'component_set_key', fileKeys: ['FILEA-badge'] },
    { list: 'GetStyles', field: 'styles', get: 'GetStyle', param: 'style_key', fileKeys: ['FILEA-brand-primary'] },
  ];

  it.each(kinds)('$list from a file returns all its published items, from the operation for files', async ({ list, field, fileKeys }) => {
    const { result, sent } = await designer.sentDuring(() => designer.call(list, { source: 'file', source_id: 'FILEA' }));
    expect(sent.map((request) => [request.path, request.query])).toEqual([[`/v1/files/FILEA/${field}`, {}]]);
    expect(result.meta[field].map((item: any) => item.key)).toEqual(fileKeys);
    expect(result.meta.cursor).toBeUndefined();
  });

  it.each(kinds)('$list from a team pages across the team’s files, 10 by default', async ({ list, field }) => {
    const { result, sent } = await designer.sentDuring(() => designer.call(list, { source: 'team', source_id: '77' }));
    expect(sent.map((request) => [request.path, request.query])).toEqual([[`/v1/teams/77/${field}`, { page_size: '10' }]]);
    const keys = result.meta[field].map((item: any) => item.key);
    expect(keys.every((key: string) => key.startsWith('FILEA-') || key.startsWith('FILEB-'))).toBe(true);
    expect(keys.length).toBe(field === 'components' ? 6 : 2);
  });

  it('a team library pages with page_size and after_cursor until the cursor runs out', async () => {
    const seen: string[] = [];
    let cursor: number | undefined;
    let pages = 0;
    do {
      const page = await designer.call('GetComponents', {
        source: 'team',
        source_id: '77',
        page_size: 4,
        ...(cursor !== undefined && { after_cursor: cursor }),
      });
      seen.push(...page.meta.components.map((item: any) => item.key));
      cursor = page.meta.cursor.after;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(2);
    expect(seen).toEqual(['FILEA-button', 'FILEA-badge-info', 'FILEA-badge-warning', 'FILEB-button', 'FILEB-badge-info', 'FILEB-badge-warning']);
    expect(emulator.requests.at(-1)!.query).toMatchObject({ page_size: '4', after: expect.any(String) });
  });

  it('page_size and after_cursor are for teams only, and a team page holds 1 to 50', async () => {
    for (const extra of [{ page_size: 5 }, { after_cursor: 3 }]) {
      const error = await designer.refuse('GetStyles', { source: 'file', source_id: 'FILEA', ...extra });
      expect(error.message).toMatch(/page_size and after_cursor page a team library; a file's styles come all at once/);
    }
    for (const page_size of [0, 51])
      expect((await designer.refuse('GetComponentSets', { source: 'team', source_id: '77', page_size })).message).toMatch(/parameter 'page_size' must be/);
    await designer.call('GetComponentSets', { source: 'team', source_id: '77', page_size: 50 });
  });

  it.each(kinds)('$get reads one published item by key', async ({ get, param, fileKeys }) => {
    const read = await designer.call(get, { [param]: fileKeys[0] });
    expect(read).toMatchObject({ status: 200, error: false, meta: { key: fileKeys[0], file_key: 'FILEA' } });
    const missing = await designer.fail(get, { [param]: 'no-such-key' });
    expect(missing).toMatchObject({ kind: 'UPSTREAM_RUNTIME_NOT_FOUND', status_code: 404 });
  });

  it('a published component names the page and frame it sits on', async () => {
    const { meta } = await designer.call('GetComponent', { component_key: 'FILEB-badge-info' });
    expect(meta).toMatchObject({
      name: 'Tone=Info',
      node_id: '2:4',
      description: 'Informational badge',
      containing_frame: { pageId: '2:0', pageName: 'Components', nodeId: '2:3', name: 'Badge' },
    });
    const { meta: style } = await designer.call('GetStyle', { style_key: 'FILEC-brand-primary' });
    expect(style).toMatchObject({ style_type: 'FILL', name: 'Brand/Primary', file_key: 'FILEC' });
  });
});

describe('bad input is refused before anything is sent', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
    ['missing required', 'GetFile', {}, /parameter 'file_key' is required/],
    ['missing required array', 'ExportImage', { file_key: 'FILEA' }, /parameter 'node_ids' is required/],
    ['wrong type', 'GetFile', { file_key: 'FILEA', depth: 'two' }, /parameter 'depth' must be an? integer/],
    ['wrong type in an array', 'GetFileNodes', { file_key: 'FILEA', node_ids: [12] }, /parameter 'node_ids(\[0\]|\.0|\/0)?' must be a string/],
    ['empty array', 'ExportImage', { file_key: 'FILEA', node_ids: [] }, /parameter 'node_ids' must NOT have fewer than 1 items/],
    ['depth below 1', 'GetFileNodes', { file_key: 'FILEA', node_ids: ['1:2'], depth: 0 }, /parameter 'depth' must be >= 1/],
    ['bad enum', 'ExportImage', { file_key: 'FILEA', node_ids: ['1:2'], image_format: 'gif' }, /parameter 'image_format' must be one of/],
    ['bad source', 'GetComponents', { source: 'organization', source_id: '77' }, /parameter 'source' must be one of/],
    ['unknown parameter', 'GetPages', { file_key: 'FILEA', version: '3' }, /'version'/],
    ['empty message', 'AddCommentOrReply', { file_key: 'FILEA', message: '' }, /parameter 'message' must NOT have fewer than 1 characters/],
    ['boolean as text', 'GetFileNodes', { file_key: 'FILEA', node_ids: ['1:2'], include_raw_data: 'yes' }, /parameter 'include_raw_data' must be a boolean/],
    ['path segment', 'GetTeamProjects', { team_id: '..' }, /must not be empty, '\.' or '\.\.'/],
  ];

  it.each(cases)('%s (%s)', async (_label, tool, input, message) => {
    const error = await designer.refuse(tool, input);
    expect(error.kind).toBe('TOOL_RUNTIME_BAD_INPUT_VALUE');
    expect(error.message).toMatch(message);
  });

  it('a call without a Figma token is refused with the scopes it needs', async () => {
    const anonymous = new ToolClient(design, { upstream: () => emulator, verbose: true });
    const error = await anonymous.refuse('GetComments', { file_key: 'FILEA' });
    expect(error).toMatchObject({ kind: 'TOOL_REQUIREMENTS_NOT_MET', message: expect.stringContaining('figma OAuth token with scopes: file_comments:read') });
  });
});

describe('catalog', () => {
  it('every tool needs a figma token and declares the catalog’s scopes, all of them from the spec', () => {
    const spec = [
      'current_user:read',
      'file_comments:read',
      'file_comments:write',
      'file_content:read',
      'library_assets:read',
      'library_content:read',
      'projects:read',
      'team_library_content:read',
    ];
    for (const tool of catalog.tools) {
      expect(tool.requirements.oauth2.provider, tool.name).toBe('figma');
      expect(
        tool.requirements.oauth2.scopes.every((scope) => spec.includes(scope)),
        tool.name,
      ).toBe(true);
    }
    expect(design.tools.find((tool) => tool.name === 'GetComponents')!.requirements.oauth2!.scopes).toEqual([
      'library_content:read',
      'team_library_content:read',
    ]);
  });

  it('tools that choose between a file and a team operation are read-only', () => {
    for (const name of ['GetComponents', 'GetComponentSets', 'GetStyles']) {
      const tool = design.tools.find((t) => t.name === name)!;
      expect(tool.http).toBeUndefined();
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });
});

describe('coverage', () => {
  it('every one of the 15 catalog tools was called successfully through the runtime', () => {
    expect(catalog.tools).toHaveLength(15);
    const missing = catalog.tools.map((tool) => tool.name).filter((name) => !covered.has(name));
    expect(missing, `tools never called successfully: ${missing.join(', ')}`).toEqual([]);
  });
});
