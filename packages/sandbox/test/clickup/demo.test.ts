import { clientFor } from '@quiver/test-support/json-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxToken, startSandbox, type Sandbox } from '../../src/sandbox.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('the sandbox task board and file store', () => {
  it('serve TaskboardApi with the demo workspace, list and tasks for the sandbox token', async () => {
    const call = clientFor(sandbox.baseUrls.TaskboardApi!, sandboxToken);
    // The first list of the first space: ids are given in order.
    const { tasks } = (await call('GET', '/v2/list/901000001/task', { query: { include_closed: true, reverse: true } })).body;
    expect(tasks.map((task: any) => [task.custom_id, task.name, task.status.status])).toEqual([
      ['PRD-1', 'Write the launch announcement', 'in progress'],
      ['PRD-2', 'Review the pricing page', 'to do'],
      ['PRD-3', 'Set up the beta feedback form', 'complete'],
    ]);
  });

  it('serve FileStore with the demo files for the sandbox token', async () => {
    const call = clientFor(sandbox.baseUrls.FileStore!, sandboxToken);
    const root = (await call('POST', '/2/files/list_folder', { body: { path: '', recursive: true } })).body;
    expect(root.entries.map((entry: any) => entry.path_display)).toEqual([
      '/Notes',
      '/Notes/Launch plan.paper',
      '/Photos',
      '/Photos/team offsite.jpg',
      '/README.txt',
      '/Reports',
      '/Reports/budget.csv',
      '/Reports/Q3 report.txt',
    ]);
  });
});
