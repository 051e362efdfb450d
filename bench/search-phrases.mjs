// Which tools' phrases lose to another tool: each tool's phrases are split in two halves; one half is indexed
// and the other searched for, then the other way round. A phrase whose tool is not first names the tool that
// beat it, which says where a tool needs phrases that tell it apart from its neighbour. Uses no evaluation
// set, so it may guide the writing of phrases. `node bench/search-phrases.mjs [toolkit]` prints the tools
// most often beaten, each with the phrases that lost and what beat them.
import { createToolIndex, defineToolkit, qualifiedName } from '@quiver/core';
import { toolkits } from '@quiver/toolkits';

const only = process.argv[2];
const beaten = new Map();
let searched = 0;
let first = 0;
for (const half of [0, 1]) {
  const halved = toolkits.map((toolkit) => {
    const phrases = toolkit.phrases?.() ?? {};
    const kept = Object.fromEntries(Object.entries(phrases).map(([name, list]) => [name, list.filter((_, i) => i % 2 === half)]));
    return { phrases, toolkit: defineToolkit({ ...toolkit, phrases: () => kept }) };
  });
  const index = await createToolIndex(halved.flatMap(({ toolkit }) => toolkit.tools));
  for (const { phrases, toolkit } of halved) {
    if (only && toolkit.name !== only) continue;
    for (const tool of toolkit.tools) {
      for (const phrase of (phrases[tool.name] ?? []).filter((_, i) => i % 2 !== half)) {
        const top = index.search(phrase, { limit: 1 })[0];
        searched++;
        if (top?.tool.name === tool.name && top.tool.toolkit.name === toolkit.name) first++;
        else beaten.set(qualifiedName(tool), [...(beaten.get(qualifiedName(tool)) ?? []), { phrase, by: top ? qualifiedName(top.tool) : '(nothing)' }]);
      }
    }
  }
}
for (const [tool, losses] of [...beaten].sort((a, b) => b[1].length - a[1].length).slice(0, 40)) {
  console.log(`${tool}: ${losses.length} beaten`);
  for (const { phrase, by } of losses.slice(0, 4)) console.log(`  "${phrase}" → ${by}`);
}
console.log(`${searched} phrases searched, ${first} found their own tool first (${((100 * first) / searched).toFixed(1)} %)`);
