import { createToolIndex, ToolRegistry, qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';
const tools = new ToolRegistry(toolkits).tools();
let t = performance.now();
const index = await createToolIndex(tools);
console.log('build ms', (performance.now() - t).toFixed(1), tools.length);
for (const q of process.argv.slice(2)) {
  t = performance.now();
  const hits = index.search(q, { limit: 5 });
  console.log(`${q}  (${(performance.now() - t).toFixed(2)} ms)`);
  for (const h of hits) console.log('   ', h.score.toFixed(2), qualifiedName(h.tool));
}
