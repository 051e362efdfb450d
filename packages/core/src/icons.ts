/**
 * Toolkit icons: a small SVG per toolkit (`ToolkitInfo.icon`), given on each of its tools as MCP `icons`
 * (revision 2025-11-25) for clients to show beside the title. A server that serves files (the engine) gives a
 * URL, `<iconBaseUrl>/<Toolkit>/icon.svg`; one that serves none (`quiver mcp` over stdio) gives the SVG itself
 * as a base64 data URI. An icon is shapes only: `iconProblems` refuses anything an SVG could run or fetch
 * (scripts, event attributes, links, styles, entities, foreign content), so it is safe however it is served.
 */

export const iconMimeType = 'image/svg+xml';
/** An icon goes on every tool of its toolkit: a data URI repeats it a thousand times in one `tools/list`. */
export const maxIconBytes = 1024;

/** MCP's Icon: a scalable SVG is good at any size. */
export interface McpIcon {
  src: string;
  mimeType: string;
  sizes: string[];
}

/** Where the engine serves a toolkit's icon, under the base URL of the toolkits' icons. */
export const iconUrl = (iconBaseUrl: string, toolkit: string): string => `${iconBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(toolkit)}/icon.svg`;

export const iconDataUri = (svg: string): string => `data:${iconMimeType};base64,${Buffer.from(svg, 'utf8').toString('base64')}`;

const dataUris = new Map<string, McpIcon[]>();

/**
 * The MCP `icons` of a toolkit's tools: a URL under `iconBaseUrl` when given, else a data URI (made once per
 * icon); undefined for a toolkit without an icon.
 */
export function mcpIcons(toolkit: { name: string; icon?: string }, iconBaseUrl?: string): McpIcon[] | undefined {
  if (!toolkit.icon) return undefined;
  if (iconBaseUrl !== undefined) return [{ src: iconUrl(iconBaseUrl, toolkit.name), mimeType: iconMimeType, sizes: ['any'] }];
  let icons = dataUris.get(toolkit.icon);
  if (!icons) {
    icons = [{ src: iconDataUri(toolkit.icon), mimeType: iconMimeType, sizes: ['any'] }];
    dataUris.set(toolkit.icon, icons);
  }
  return icons;
}

/** Plain shapes, nothing that draws from elsewhere (`use`, `image`), holds markup (`foreignObject`) or runs (`script`, animation). */
const shapes = new Set(['svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon']);
/** Attributes that run script, fetch, or bring in CSS (which can fetch). */
const refusedAttribute = /^(on|href$|src$|style$|xmlns:|xlink:)/i;

/**
 * What keeps `svg` from being a toolkit icon: empty when it is one. An icon is one `<svg>` element in the SVG
 * namespace with a `viewBox`, of plain shapes (svg, g, path, rect, circle, ellipse, line, polyline, polygon)
 * with plain attributes, well formed, within `maxIconBytes`.
 */
export function iconProblems(svg: string): string[] {
  const problems: string[] = [];
  const bytes = Buffer.byteLength(svg, 'utf8');
  if (bytes > maxIconBytes) problems.push(`is ${bytes} bytes, more than ${maxIconBytes}`);
  const token = /<\/([a-zA-Z]+)\s*>|<([a-zA-Z]+)((?:\s+[^\s=/>]+="[^"]*")*)\s*(\/?)>|([^<]+)|</gy;
  const open: string[] = [];
  let roots = 0;
  for (let match = token.exec(svg); match; match = token.exec(svg)) {
    const [, closing, name, attributes = '', selfClosing, text] = match;
    if (text !== undefined) {
      if (text.trim()) problems.push(`holds text outside the elements: ${JSON.stringify(text.trim().slice(0, 20))}`);
    } else if (closing !== undefined) {
      if (open.pop() !== closing) problems.push(`closes <${closing}> that is not open`);
    } else if (name !== undefined) {
      if (!shapes.has(name)) problems.push(`holds <${name}>, which is not a plain shape`);
      if (open.length === 0 && ++roots > 1) problems.push('has more than one root element');
      if (open.length === 0 && name !== 'svg') problems.push(`starts with <${name}>, not <svg>`);
      if (open.length > 0 && name === 'svg') problems.push('nests an <svg>');
      const attrs = new Map([...attributes.matchAll(/\s+([^\s=/>]+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]));
      for (const [key, value] of attrs) {
        if (refusedAttribute.test(key)) problems.push(`<${name}> has the attribute ${key}`);
        if (/url\s*\(|[<&]|script:/i.test(value)) problems.push(`<${name} ${key}> holds a reference, entity or markup`);
      }
      if (name === 'svg' && open.length === 0) {
        if (attrs.get('xmlns') !== 'http://www.w3.org/2000/svg') problems.push('<svg> is not in the SVG namespace (xmlns="http://www.w3.org/2000/svg")');
        if (!/^-?[\d.]+ -?[\d.]+ [\d.]+ [\d.]+$/.test(attrs.get('viewBox') ?? '')) problems.push('<svg> has no viewBox');
      } else if (attrs.has('xmlns')) problems.push(`<${name}> declares a namespace`);
      if (!selfClosing) open.push(name);
    } else {
      problems.push(
        `holds markup that is no plain element at ${JSON.stringify(svg.slice(match.index, match.index + 12))} (a comment, doctype, processing instruction, CDATA or a malformed tag)`,
      );
      break;
    }
  }
  if (roots === 0) problems.push('has no <svg> element');
  if (open.length) problems.push(`leaves <${open.join('>, <')}> open`);
  return [...new Set(problems)];
}
