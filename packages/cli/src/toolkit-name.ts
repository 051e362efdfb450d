/** The name of a toolkit `quiver toolkit init` or `import` writes. */
import { toolkits } from '@quiver/toolkits';
import { UsageError } from './usage-error.js';

/**
 * PascalCase letters and digits, at most 40 characters, and no built-in toolkit's name in any letter case:
 * a folder under such a name would be refused when it is loaded (toolkit-paths.ts), so it is refused here.
 */
export function checkNewToolkitName(name: string, example: string): void {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(name) || name.length > 40) {
    throw new UsageError(`the toolkit name must be PascalCase letters and digits, at most 40 characters (e.g. ${example}), got '${name}'`);
  }
  const taken = toolkits.find((toolkit) => toolkit.name.toLowerCase() === name.toLowerCase());
  if (taken) throw new UsageError(`the toolkit name ${name} is taken by the built-in toolkit ${taken.name}: choose another`);
}
