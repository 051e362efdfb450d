/** All loaded toolkits, and lookup of a tool by any of the names callers use for it. */
import type { Tool, Toolkit } from './tool.js';
import { functionName } from './formats.js';

export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(readonly toolkits: readonly Toolkit[]) {
    for (const toolkit of toolkits) {
      for (const tool of toolkit.tools) {
        for (const name of [`${toolkit.name}.${tool.name}`, functionName(tool)]) {
          if (this.byName.has(name)) throw new Error(`Duplicate tool name ${name}`);
          this.byName.set(name, tool);
        }
      }
    }
  }

  /** By `Toolkit.Tool`, `Toolkit_Tool` or `Toolkit.Tool@version`. */
  get(name: string): Tool | undefined {
    const [bare, version] = name.split('@');
    const tool = this.byName.get(bare!);
    return tool && (!version || version === tool.toolkit.version) ? tool : undefined;
  }

  toolkit(name: string): Toolkit | undefined {
    return this.toolkits.find((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase());
  }

  tools(toolkit?: string): Tool[] {
    const selected = toolkit === undefined ? this.toolkits : this.toolkits.filter((t) => t.name.toLowerCase() === toolkit.toLowerCase());
    return selected.flatMap((t) => t.tools);
  }
}
