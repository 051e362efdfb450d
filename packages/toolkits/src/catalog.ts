import { readFileSync } from 'node:fs';
import type { ToolkitData } from '@quiver/core';

/** Reads a toolkit's generated catalog that sits beside the module that asks for it. */
export function readCatalog(url: URL): ToolkitData {
  return JSON.parse(readFileSync(url, 'utf8')) as ToolkitData;
}
