/** Every tool the engine serves, from all its sources, found by the names callers use. */
import { functionName, qualifiedName, type Tool } from '@quiver/core';
import type { ToolSource } from './source.js';

export interface CatalogEntry {
  tool: Tool;
  source: ToolSource;
}

export class ToolCatalog {
  private readonly sources = new Map<string, ToolSource>();
  private entries: CatalogEntry[] | undefined;

  constructor(sources: ToolSource[] = []) {
    for (const source of sources) this.sources.set(source.id, source);
  }

  add(source: ToolSource): void {
    this.sources.set(source.id, source);
    this.entries = undefined;
  }

  remove(id: string): void {
    this.sources.delete(id);
    this.entries = undefined;
  }

  /** Sources are asked once; adding or removing a source asks again. */
  async all(): Promise<CatalogEntry[]> {
    if (!this.entries) {
      const lists = await Promise.all(
        [...this.sources.values()].map(async (source) => (await source.tools().catch(() => [])).map((tool) => ({ tool, source }))),
      );
      this.entries = lists.flat();
    }
    return this.entries;
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
