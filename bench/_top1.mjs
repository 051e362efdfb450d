import { readFileSync } from 'node:fs';
import { createToolIndex, qualifiedName, ToolRegistry } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
const registry = new ToolRegistry(toolkits);
const index = await createToolIndex(registry.tools());
const { items } = JSON.parse(readFileSync('bench/search-eval.json', 'utf8'));
for (const item of items) {
  const ranked = index.search(item.query, { limit: 3 }).map((h) => h.tool);
  if (!item.expected.includes(qualifiedName(ranked[0]))) console.log(`${item.query} | want ${item.expected.map(n=>n.split('.')[1]).join(',')} | top ${ranked.map(t => `${t.name}: ${t.description.split(/(?<=\.)\s/)[0].slice(0,90)}`).join(' || ')}`);
}
