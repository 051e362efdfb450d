/**
 * A little task-board data for a new sandbox user: the workspace "Quiver demo" with the space "Product"
 * (custom task ids PRD-1, ...), the list "Roadmap" and three tasks in it. No tool creates workspaces or
 * spaces, so those come from the emulator; the list and tasks go through its HTTP API like any tool's.
 */
import type { ClickupEmulator } from './emulator.js';

export async function seedClickupDemo(emulator: ClickupEmulator, token: string): Promise<void> {
  const team = emulator.createWorkspace('Quiver demo', [emulator.userFor(token)]);
  const space = emulator.createSpace(team, 'Product', { customTaskIdPrefix: 'PRD' });
  const send = async (path: string, body: unknown) => {
    const response = await fetch(emulator.url + path, {
      method: 'POST',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`sandbox demo data: POST ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const list = await send(`/v2/space/${space}/list`, { name: 'Roadmap', content: 'What we are building this quarter.' });
  await send(`/v2/list/${list.id}/task`, { name: 'Write the launch announcement', status: 'in progress', priority: 2, tags: ['launch'] });
  await send(`/v2/list/${list.id}/task`, { name: 'Review the pricing page', tags: ['web'] });
  await send(`/v2/list/${list.id}/task`, { name: 'Set up the beta feedback form', status: 'complete' });
}
