/**
 * A small design file in Figma's document shape: two pages, frames with fills and text, a component and
 * a component set with variants, and a colour style. The sandbox demo and the tests build files from it.
 */
import type { FigmaSeed, SeedFile, SeedLibraryItem } from './seed.js';
import type { FigmaNode, Rgba } from './tree.js';

const solid = (r: number, g: number, b: number): Array<{ type: string; color: Rgba }> => [{ type: 'SOLID', color: { r, g, b, a: 1 } }];
const box = (x: number, y: number, width: number, height: number) => ({ absoluteBoundingBox: { x, y, width, height } });

function frame(id: string, name: string, x: number, y: number, width: number, height: number, children: FigmaNode[], fill = solid(1, 1, 1)): FigmaNode {
  return { id, name, type: 'FRAME', visible: true, fills: fill, ...box(x, y, width, height), children };
}

function text(id: string, name: string, characters: string, x: number, y: number): FigmaNode {
  return { id, name, type: 'TEXT', characters, fills: solid(0.1, 0.1, 0.1), ...box(x, y, 320, 40) };
}

/** The file's document; every node id is of the `page:n` form Figma uses. */
export function sampleDocument(): FigmaNode {
  return {
    id: '0:0',
    name: 'Document',
    type: 'DOCUMENT',
    children: [
      {
        id: '0:1',
        name: 'Cover',
        type: 'CANVAS',
        backgroundColor: { r: 0.96, g: 0.96, b: 0.96, a: 1 },
        children: [
          frame(
            '1:2',
            'Hero',
            0,
            0,
            1440,
            900,
            [text('1:3', 'Headline', 'Design systems that ship', 120, 200), text('1:4', 'Tagline', 'From Figma to production', 120, 260)],
            solid(0.13, 0.35, 0.85),
          ),
          frame('1:5', 'Footer', 0, 1000, 1440, 200, [text('1:6', 'Copyright', '© Quiver Labs', 120, 1080)]),
        ],
      },
      {
        id: '2:0',
        name: 'Components',
        type: 'CANVAS',
        backgroundColor: { r: 1, g: 1, b: 1, a: 1 },
        children: [
          {
            id: '2:1',
            name: 'Button',
            type: 'COMPONENT',
            fills: solid(0.2, 0.6, 0.3),
            ...box(0, 0, 160, 48),
            children: [text('2:2', 'Label', 'Continue', 16, 12)],
          },
          {
            id: '2:3',
            name: 'Badge',
            type: 'COMPONENT_SET',
            fills: solid(1, 1, 1),
            ...box(0, 100, 240, 48),
            children: [
              { id: '2:4', name: 'Tone=Info', type: 'COMPONENT', fills: solid(0.2, 0.4, 0.9), ...box(0, 100, 100, 48) },
              { id: '2:5', name: 'Tone=Warning', type: 'COMPONENT', fills: solid(0.95, 0.6, 0.1), ...box(120, 100, 100, 48) },
            ],
          },
          { id: '2:6', name: 'Brand/Primary', type: 'RECTANGLE', fills: solid(0.13, 0.35, 0.85), ...box(0, 200, 64, 64) },
        ],
      },
    ],
  };
}

/** What the sample file publishes, with keys made unique by `prefix`. */
export function samplePublications(prefix: string): SeedLibraryItem[] {
  return [
    { kind: 'components', key: `${prefix}-button`, nodeId: '2:1', description: 'Primary call to action' },
    { kind: 'components', key: `${prefix}-badge-info`, nodeId: '2:4', description: 'Informational badge' },
    { kind: 'components', key: `${prefix}-badge-warning`, nodeId: '2:5', description: 'Warning badge' },
    { kind: 'component_sets', key: `${prefix}-badge`, nodeId: '2:3', description: 'Badge with tones' },
    { kind: 'styles', key: `${prefix}-brand-primary`, nodeId: '2:6', description: 'Brand blue', styleType: 'FILL' },
  ];
}

export function sampleFile(key: string, name: string): SeedFile & { publish: SeedLibraryItem[] } {
  return { key, name, document: sampleDocument(), publish: samplePublications(key) };
}

/** The sandbox's demo: team 1001 with the project "Website" and the file "Marketing site" (key DEMOFILE). */
export function demoSeed(publisherToken: string): FigmaSeed {
  return {
    team: { id: '1001', name: 'Quiver Design' },
    project: { id: '2001', name: 'Website' },
    files: [sampleFile('DEMOFILE', 'Marketing site')],
    publisherToken,
  };
}
