/** Every tool the engine serves, from all its sources, found by the names callers use. */
import { functionName, qualifiedName, type Tool } from '@quiver/core';
import type { ToolSource } from './source.js';

export interface CatalogEntry {
  tool: Tool;
  source: ToolSource;
}

export class ToolCatalog {
  private readonly sources = new Map<string, ToolSource>();
  /** Each source's tools, asked once (concurrent listings share the one question). */
  private readonly answers = new Map<string, Promise<CatalogEntry[]>>();
  /** When a source last failed to answer: it is asked again after `retryAfterMs`. */
  private readonly failedAt = new Map<string, number>();
  private readonly retryAfterMs = 30_000;

  /**
   * `listed` hides tools from listings (the engine's tool selection); `find` still finds them, so that
   * a call is refused with the reason rather than as an unknown tool.
   */
  constructor(
    sources: ToolSource[] = [],
    private readonly listed: (tool: Tool) => boolean = () => true,
  ) {
    for (const source of sources) this.sources.set(source.id, source);
  }

  add(source: ToolSource): void {
    this.remove(source.id);
    this.sources.set(source.id, source);
  }

  remove(id: string): void {
    this.sources.delete(id);
    this.answers.delete(id);
    this.failedAt.delete(id);
  }

  /**
   * Sources are asked once; adding or removing a source asks again. A source that fails (a remote
   * worker that is down) lists no tools, and is asked again on a listing after a pause.
   */
  async all(): Promise<CatalogEntry[]> {
    const lists = await Promise.all([...this.sources.values()].map((source) => this.entriesOf(source)));
    return lists.flat();
  }

  private entriesOf(source: ToolSource): Promise<CatalogEntry[]> {
    const known = this.answers.get(source.id);
    if (known) return known;
    if (Date.now() - (this.failedAt.get(source.id) ?? -Infinity) < this.retryAfterMs) return Promise.resolve([]);
    const answer = source.tools().then(
      (tools) => tools.map((tool) => ({ tool, source })),
      () => {
        if (this.answers.get(source.id) === answer) {
          this.answers.delete(source.id);
          this.failedAt.set(source.id, Date.now());
        }
        return [];
      },
    );
    this.answers.set(source.id, answer);
    return answer;
  }

  async list(toolkit?: string): Promise<CatalogEntry[]> {
    const all = await this.all();
    return all.filter(({ tool }) => this.listed(tool) && (!toolkit || tool.toolkit.name.toLowerCase() === toolkit.toLowerCase()));
  }

  /** By `Toolkit.Tool`, `Toolkit_Tool`, optionally with `@version`; sources are searched in order. */
  async find(name: string, version?: string): Promise<CatalogEntry | undefined> {
    const [bare, pinned] = name.split('@');
    const wanted = version ?? pinned;
    for (const source of this.sources.values()) {
      const entry = byName(await this.entriesOf(source)).get(bare!);
      if (entry && (!wanted || entry.tool.toolkit.version === wanted)) return entry;
    }
    return undefined;
  }
}

/** Each source's answer, indexed by both names once, so that a call does not scan every tool. */
const indexes = new WeakMap<CatalogEntry[], Map<string, CatalogEntry>>();

function byName(entries: CatalogEntry[]): Map<string, CatalogEntry> {
  let index = indexes.get(entries);
  if (!index) {
    index = new Map();
    for (const entry of entries) {
      for (const name of [qualifiedName(entry.tool), functionName(entry.tool)]) if (!index.has(name)) index.set(name, entry);
    }
    indexes.set(entries, index);
  }
  return index;
}
