/** Every tool the engine serves, from all its sources, found by the names callers use. */
import { functionName, qualifiedName, type Tool } from '@quiver/core';
import type { ToolSource } from './source.js';

export interface CatalogEntry {
  tool: Tool;
  source: ToolSource;
}

export class ToolCatalog {
  private readonly sources = new Map<string, ToolSource>();
  /** Each source's tools, once it has answered. */
  private readonly answered = new Map<string, CatalogEntry[]>();
  /** When a source last failed to answer: it is asked again after `retryAfterMs`. */
  private readonly failedAt = new Map<string, number>();
  private readonly retryAfterMs = 15_000;

  constructor(sources: ToolSource[] = []) {
    for (const source of sources) this.sources.set(source.id, source);
  }

  add(source: ToolSource): void {
    this.remove(source.id);
    this.sources.set(source.id, source);
  }

  remove(id: string): void {
    this.sources.delete(id);
    this.answered.delete(id);
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

  private async entriesOf(source: ToolSource): Promise<CatalogEntry[]> {
    const known = this.answered.get(source.id);
    if (known) return known;
    if (Date.now() - (this.failedAt.get(source.id) ?? -Infinity) < this.retryAfterMs) return [];
    try {
      const entries = (await source.tools()).map((tool) => ({ tool, source }));
      if (this.sources.get(source.id) === source) this.answered.set(source.id, entries);
      return entries;
    } catch {
      if (this.sources.get(source.id) === source) this.failedAt.set(source.id, Date.now());
      return [];
    }
  }

  async list(toolkit?: string): Promise<CatalogEntry[]> {
    const all = await this.all();
    return toolkit ? all.filter((entry) => entry.tool.toolkit.name.toLowerCase() === toolkit.toLowerCase()) : all;
  }

  /** By `Toolkit.Tool`, `Toolkit_Tool`, optionally with `@version`. */
  async find(name: string, version?: string): Promise<CatalogEntry | undefined> {
    const [bare, pinned] = name.split('@');
    const wanted = version ?? pinned;
    return (await this.all()).find(
      ({ tool }) => (qualifiedName(tool) === bare || functionName(tool) === bare) && (!wanted || tool.toolkit.version === wanted),
    );
  }
}
