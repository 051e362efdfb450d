/**
 * Every tool a dispatcher serves, from all its sources, each tool once, found by the names callers use.
 *
 * Sources come in precedence order: a toolkit belongs to the first source that serves it, so a worker
 * registered for a toolkit replaces the built-in one. A toolkit whose source is disabled or cannot be
 * reached stays with that source: its calls fail naming the source, and never fall back to another.
 */
import { functionName } from './formats.js';
import type { ToolSource } from './source.js';
import { qualifiedName, type Tool } from './tool.js';

export interface CatalogEntry {
  tool: Tool;
  source: ToolSource;
}

/** A name whose toolkit belongs to a source that cannot run it now. */
export interface UnavailableTool {
  unavailable: string;
  source: ToolSource;
  /** The source may answer again soon (it did not list its tools), as against a disabled one. */
  retryable: boolean;
}

interface View {
  entries: CatalogEntry[];
  byName: Map<string, CatalogEntry>;
  /** Toolkit (lower case) to the source that owns it. */
  owners: Map<string, ToolSource>;
}

export class ToolCatalog {
  private sources: ToolSource[] = [];
  /** Each source's last good listing; kept while a later listing fails, so that calls still reach it. */
  private readonly listings = new Map<string, readonly Tool[]>();
  /** Listings asked for and not answered yet, so concurrent callers share the one question. */
  private readonly asking = new Map<string, Promise<void>>();
  /** When a source last failed to list: it is asked again after `retryAfterMs`, in the background. */
  private readonly failedAt = new Map<string, number>();
  private view: Promise<View> | undefined;

  constructor(
    sources: readonly ToolSource[] = [],
    private readonly retryAfterMs = 30_000,
  ) {
    this.setSources(sources);
  }

  /** Replaces the sources (in precedence order), keeping the listings of those that stay unchanged. */
  setSources(sources: readonly ToolSource[]): void {
    const kept = new Set(sources.map((source) => source.id));
    for (const id of [...this.listings.keys()]) {
      const next = sources.find((source) => source.id === id);
      if (!kept.has(id) || next !== this.sources.find((source) => source.id === id)) this.forget(id);
    }
    this.sources = [...sources];
    this.view = undefined;
  }

  get sourceList(): readonly ToolSource[] {
    return this.sources;
  }

  /** Every tool once, in source order. */
  async entries(): Promise<CatalogEntry[]> {
    return (await this.current()).entries;
  }

  async tools(): Promise<Tool[]> {
    return (await this.entries()).map((entry) => entry.tool);
  }

  /** The source that runs a toolkit's tools, if any. */
  async ownerOf(toolkit: string): Promise<ToolSource | undefined> {
    return (await this.current()).owners.get(toolkit.toLowerCase());
  }

  /**
   * By `Toolkit.Tool` or `Toolkit_Tool`, optionally with `@version`. A name in a toolkit whose
   * source is disabled or unreachable answers why it cannot run instead of falling through.
   */
  async resolve(name: string, version?: string): Promise<CatalogEntry | UnavailableTool | undefined> {
    const view = await this.current();
    const [bare = '', pinned] = name.split('@');
    const wanted = version ?? pinned;
    const entry = view.byName.get(bare);
    if (entry) return !wanted || entry.tool.toolkit.version === wanted ? entry : undefined;
    const owner = view.owners.get(toolkitOfName(bare));
    if (!owner || owner.id === 'builtin') return undefined;
    if (owner.disabled) return { source: owner, unavailable: owner.disabled, retryable: false };
    return { source: owner, unavailable: `${owner.label} did not list its tools (it may be down); try again shortly.`, retryable: true };
  }

  private current(): Promise<View> {
    this.retryFailed();
    this.view ??= this.build();
    return this.view;
  }

  private async build(): Promise<View> {
    await Promise.all(this.sources.filter((source) => !this.listings.has(source.id) && !this.failedAt.has(source.id)).map((source) => this.ask(source)));
    const owners = new Map<string, ToolSource>();
    for (const source of this.sources) {
      const toolkits = [...(source.toolkits ?? []), ...(this.listings.get(source.id) ?? []).map((tool) => tool.toolkit.name)];
      for (const toolkit of toolkits) if (!owners.has(toolkit.toLowerCase())) owners.set(toolkit.toLowerCase(), source);
    }
    const entries: CatalogEntry[] = [];
    const byName = new Map<string, CatalogEntry>();
    for (const source of this.sources) {
      if (source.disabled) continue;
      for (const tool of this.listings.get(source.id) ?? []) {
        if (owners.get(tool.toolkit.name.toLowerCase()) !== source) continue;
        const entry = { tool, source };
        const names = [qualifiedName(tool), functionName(tool)];
        if (names.some((n) => byName.has(n))) continue;
        entries.push(entry);
        for (const n of names) byName.set(n, entry);
      }
    }
    return { entries, byName, owners };
  }

  private ask(source: ToolSource): Promise<void> {
    let question = this.asking.get(source.id);
    if (!question) {
      question = source
        .tools()
        .then(
          (tools) => {
            if (this.sources.includes(source)) this.listings.set(source.id, tools);
            this.failedAt.delete(source.id);
          },
          (error) => {
            // The built-in source cannot be down: a toolkit it cannot read (a damaged catalog) is an error to show, not a source to wait for.
            if (source.id === 'builtin') throw error;
            this.failedAt.set(source.id, Date.now());
          },
        )
        .finally(() => this.asking.delete(source.id));
      this.asking.set(source.id, question);
    }
    return question;
  }

  /** A source that failed is asked again after a pause, without holding up the calls in between. */
  private retryFailed(): void {
    for (const [id, at] of this.failedAt) {
      const source = this.sources.find((candidate) => candidate.id === id);
      if (!source || this.asking.has(id) || Date.now() - at < this.retryAfterMs) continue;
      void this.ask(source).then(() => {
        if (this.listings.has(id)) this.view = undefined;
      });
    }
  }

  private forget(id: string): void {
    this.listings.delete(id);
    this.failedAt.delete(id);
    this.asking.delete(id);
  }
}

/** The toolkit part of `Toolkit.Tool` or `Toolkit_Tool`, lower case. */
function toolkitOfName(name: string): string {
  const dot = name.indexOf('.');
  const cut = dot >= 0 ? dot : name.indexOf('_');
  return (cut >= 0 ? name.slice(0, cut) : '').toLowerCase();
}
