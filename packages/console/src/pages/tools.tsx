/** All tools by toolkit, searched as you type with the engine's search, filtered, in a virtualised list. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { SEARCH_SHOWN, toolIndex, useSearch, type ToolSummary } from '../tool-index.js';
import { hashParams, keepInHash } from '../route.js';
import { ErrorNote, Loading, useLoad } from '../ui.js';

interface Filters {
  toolkit: string;
  readOnly: boolean;
  destructive: boolean;
  oauth: boolean;
  secrets: boolean;
}

const rowHeight = 56;
const headerHeight = 36;
const overscan = 6;

type Row = { kind: 'toolkit'; toolkit: string; count: number } | { kind: 'tool'; tool: ToolSummary };

/** The search and filters as the address keeps them (`#/tools?q=close+an+issue&toolkit=RepoHostApi&read_only=1`). */
const inAddress = { readOnly: 'read_only', destructive: 'destructive', oauth: 'oauth', secrets: 'secrets' } as const;

function filtersFromAddress(): Filters {
  const params = hashParams();
  const on = (name: keyof typeof inAddress) => params.get(inAddress[name]) === '1';
  return { toolkit: params.get('toolkit') ?? '', readOnly: on('readOnly'), destructive: on('destructive'), oauth: on('oauth'), secrets: on('secrets') };
}

export function ToolsPage() {
  const index = useLoad(toolIndex, []);
  const [text, setText] = useState(() => hashParams().get('q') ?? '');
  const [filters, setFilters] = useState<Filters>(filtersFromAddress);
  useEffect(
    () =>
      keepInHash({
        q: text.trim(),
        toolkit: filters.toolkit,
        ...Object.fromEntries(Object.entries(inAddress).map(([name, param]) => [param, filters[name as keyof typeof inAddress]])),
      }),
    [text, filters],
  );
  const { answer: ranked, error: searchError } = useSearch(text, filters.toolkit || undefined);

  const toolkits = useMemo(() => [...new Set((index.data ?? []).map((tool) => tool.toolkit))], [index.data]);

  const rows = useMemo((): Row[] => {
    const all = index.data ?? [];
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const source = ranked ? ranked.names.flatMap((name) => byName.get(name) ?? []) : all;
    const kept = source.filter(
      (tool) =>
        (!filters.toolkit || tool.toolkit === filters.toolkit) &&
        (!filters.readOnly || tool.read_only) &&
        (!filters.destructive || tool.destructive) &&
        (!filters.oauth || tool.oauth_provider) &&
        (!filters.secrets || tool.secrets.length > 0),
    );
    if (ranked) return kept.map((tool) => ({ kind: 'tool', tool }));
    const out: Row[] = [];
    let header: Extract<Row, { kind: 'toolkit' }> | undefined;
    for (const tool of kept) {
      if (header?.toolkit !== tool.toolkit) {
        header = { kind: 'toolkit', toolkit: tool.toolkit, count: 0 };
        out.push(header);
      }
      header.count++;
      out.push({ kind: 'tool', tool });
    }
    return out;
  }, [index.data, ranked, filters]);

  const toolCount = rows.filter((row) => row.kind === 'tool').length;
  const toggle = (name: keyof Omit<Filters, 'toolkit'>) => (event: Event) =>
    setFilters({ ...filters, [name]: (event.currentTarget as HTMLInputElement).checked });

  return (
    <div>
      <h1>Tools</h1>
      {/* biome-ignore lint/a11y/useSemanticElements: the search landmark; the <search> element is not in the JSX types yet. */}
      <div class="toolbar" role="search">
        <label class="field grow" for="tool-search">
          <span>Search</span>
          <input
            id="tool-search"
            type="search"
            value={text}
            placeholder="What should the tool do? e.g. close an issue"
            onInput={(event) => setText(event.currentTarget.value)}
          />
        </label>
        <label class="field" for="tool-toolkit">
          <span>Toolkit</span>
          <select id="tool-toolkit" value={filters.toolkit} onChange={(event) => setFilters({ ...filters, toolkit: event.currentTarget.value })}>
            <option value="">All toolkits</option>
            {toolkits.map((toolkit) => (
              <option key={toolkit} value={toolkit}>
                {toolkit}
              </option>
            ))}
          </select>
        </label>
        <fieldset class="checks">
          <legend>Only</legend>
          <label>
            <input type="checkbox" checked={filters.readOnly} onChange={toggle('readOnly')} /> read-only
          </label>
          <label>
            <input type="checkbox" checked={filters.destructive} onChange={toggle('destructive')} /> destructive
          </label>
          <label>
            <input type="checkbox" checked={filters.oauth} onChange={toggle('oauth')} /> needs OAuth
          </label>
          <label>
            <input type="checkbox" checked={filters.secrets} onChange={toggle('secrets')} /> needs secrets
          </label>
        </fieldset>
      </div>
      <ErrorNote error={index.error ?? searchError} />
      {index.loading && !index.data ? (
        <Loading what="tools" />
      ) : (
        <>
          <p class="muted" role="status" aria-live="polite">
            {text.trim() && !ranked ? '' : ranked ? searchStatus(toolCount, ranked) : `${toolCount.toLocaleString('en')} ${toolCount === 1 ? 'tool' : 'tools'}`}
          </p>
          {text.trim() && !ranked ? (
            // A search named in the address is on its way: the whole list would show, then jump.
            <Loading what="the search" />
          ) : ranked && toolCount === 0 ? (
            <NoMatch text={ranked.text} filtered={ranked.total > 0} onTry={setText} />
          ) : (
            <VirtualList rows={rows} />
          )}
        </>
      )}
    </div>
  );
}

/** What a search found: how many of the tools shown, of how many that matched in all. */
function searchStatus(shown: number, { text, total }: { text: string; total: number }): string {
  const counted = total > SEARCH_SHOWN || shown < total ? `${shown.toLocaleString('en')} of ${total.toLocaleString('en')}` : shown.toLocaleString('en');
  return `${counted} ${total === 1 ? 'tool' : 'tools'} matching, best match first for “${text}”`;
}

/** Requests people make every day, offered where a search finds nothing. */
const tryInstead = ['open an issue', 'list my repositories', 'send an email', 'find a support ticket', 'create a campaign'];

/** A search that found nothing: why, and searches to try instead. */
function NoMatch({ text, filtered, onTry }: { text: string; filtered: boolean; onTry: (text: string) => void }) {
  return (
    <div class="empty">
      <p>
        {filtered
          ? `Tools match “${text}”, but none with the toolkit and filters chosen: widen them.`
          : `No tool matches “${text}”. Say what the tool should do, in other words, or try one of these:`}
      </p>
      {!filtered && (
        <ul class="suggestions">
          {tryInstead.map((suggestion) => (
            <li key={suggestion}>
              <button type="button" class="link" onClick={() => onTry(suggestion)}>
                {suggestion}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Only the rows in view (and a few either side) are in the page: 1,007 tools scroll as fast as ten. */
function VirtualList({ rows }: { rows: Row[] }) {
  const viewport = useRef<HTMLElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const offsets = useMemo(() => {
    const tops: number[] = [];
    let top = 0;
    for (const row of rows) {
      tops.push(top);
      top += row.kind === 'tool' ? rowHeight : headerHeight;
    }
    return { tops, total: top };
  }, [rows]);

  useEffect(() => {
    const element = viewport.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  // The first rows shown go back to where this address was left (Back from a tool); later ones start at the top.
  const restored = useRef(false);
  useEffect(() => {
    const saved = restored.current ? 0 : Number(sessionStorage.getItem(scrollKey()) ?? 0);
    restored.current = rows.length > 0;
    viewport.current?.scrollTo({ top: saved });
    setScrollTop(viewport.current?.scrollTop ?? 0);
  }, [rows]);

  const scrolled = (event: Event) => {
    const top = (event.currentTarget as HTMLElement).scrollTop;
    setScrollTop(top);
    sessionStorage.setItem(scrollKey(), String(top));
  };
  const first = Math.max(0, upperBound(offsets.tops, scrollTop) - 1 - overscan);
  const last = Math.min(rows.length, upperBound(offsets.tops, scrollTop + height) + overscan);

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling list must take focus to be scrolled from the keyboard.
    <section class="virtual" ref={viewport} tabIndex={0} aria-label="Tool list" onScroll={scrolled}>
      <ul class="virtual-inner" style={{ height: `${offsets.total}px` }}>
        {rows.slice(first, last).map((row, i) => {
          const top = offsets.tops[first + i]!;
          if (row.kind === 'toolkit') {
            return (
              <li key={`toolkit:${row.toolkit}`} class="virtual-row toolkit-row" style={{ top: `${top}px`, height: `${headerHeight}px` }}>
                <strong>{row.toolkit}</strong> <span class="muted">{row.count} tools</span>
              </li>
            );
          }
          const { tool } = row;
          return (
            <li key={tool.name} class="virtual-row" style={{ top: `${top}px`, height: `${rowHeight}px` }}>
              <a class="tool-link" href={`#/tools/${encodeURIComponent(tool.name)}`}>
                <span class="tool-name">{tool.name}</span>
                <span class="badges">
                  {tool.read_only && <span class="badge">read-only</span>}
                  {tool.destructive && <span class="badge danger">destructive</span>}
                  {tool.oauth_provider && <span class="badge">OAuth: {tool.oauth_provider}</span>}
                  {tool.secrets.length > 0 && <span class="badge">secrets</span>}
                  {tool.routed_to !== 'builtin' && <span class="badge">worker: {tool.routed_to}</span>}
                </span>
                <span class="tool-summary">{tool.summary}</span>
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Where the list was scrolled, kept per address for the tab. */
const scrollKey = () => `quiver.scroll.${location.hash.split('?')[0]}?${hashParams().toString()}`;

/** The index of the first offset greater than `value`. */
function upperBound(sorted: number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}
