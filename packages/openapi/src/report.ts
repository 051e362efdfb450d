/** report.md: what an import made and what it skipped, and why. */
import type { Conversion } from './convert.js';

/** `problems`: what the strict catalog checks find in the toolkit as a whole (see `ImportedToolkit.problems`). */
export function renderReport(conversion: Conversion, source: string, sourceVersion: string, problems: readonly string[] = []): string {
  const { toolkit, made, skipped, notes, manifest } = conversion;
  const total = made.length + skipped.length;
  const modeDriven = made.filter((tool) => tool.kind === 'mode-driven').length;
  const lines = [
    `# ${toolkit.name}: imported from ${source}`,
    '',
    `OpenAPI ${sourceVersion}${sourceVersion.startsWith('2.') ? ' (converted to OpenAPI 3.0)' : ''}, version ${toolkit.version}. Base URL: ${toolkit.baseUrl}.`,
    '',
    `${total} operation(s): ${made.length} tool(s) made (${modeDriven} mode-driven), ${skipped.length} skipped.`,
  ];
  const secrets = [...new Set(toolkit.tools.flatMap((tool) => (tool.requirements.secrets ?? []).map((secret) => secret.key)))];
  if (secrets.length) lines.push('', `Secrets to set: ${secrets.join(', ')}.`);
  for (const provider of manifest.authProviders ?? []) {
    lines.push(
      '',
      `OAuth provider ${provider.id}: authorize ${provider.authorizeUrl ?? '-'}, token ${provider.tokenUrl ?? '-'}; configure its client_id and client_secret under "authProviders".`,
    );
  }
  if (problems.length) {
    lines.push(
      '',
      '## Problems',
      '',
      'The toolkit as a whole fails these catalog checks, so its catalog is not marked as checked: loading it checks it again.',
      '',
      ...problems.map((problem) => `- ${problem}`),
    );
  }
  if (!made.length) lines.push('', 'No operation became a tool: a toolkit without tools does not load.');
  if (skipped.length) {
    lines.push('', '## Skipped', '', '| Method | Path | operationId | Reason |', '| --- | --- | --- | --- |');
    for (const item of skipped) lines.push(`| ${item.method} | ${cell(item.path)} | ${cell(item.operationId ?? '')} | ${cell(item.reason)} |`);
  }
  if (notes.length) lines.push('', '## Notes', '', ...notes.map((note) => `- ${note}`));
  lines.push('', '## Tools', '', '| Tool | Method | Path | Kind | Credentials |', '| --- | --- | --- | --- | --- |');
  for (const item of made) lines.push(`| ${item.tool} | ${item.method} | ${cell(item.path)} | ${item.kind} | ${cell(item.auth)} |`);
  return `${lines.join('\n')}\n`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
