/**
 * A little code-hosting data for a new sandbox user to look at and change: `octocat` (whose token
 * the sandbox hands out) owns `hello-world`, which has a `triage` label and one open issue carrying
 * it. Created through the emulator's own HTTP API, so it passes the same checks as any tool's request.
 */
export const demoRepository = { owner: 'octocat', name: 'hello-world' };

export async function seedGithubDemo(baseUrl: string, token: string): Promise<void> {
  const send = async (method: string, path: string, body: unknown) => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`sandbox demo data: ${method} ${path} answered ${response.status}: ${await response.text()}`);
  };
  const repo = `/repos/${demoRepository.owner}/${demoRepository.name}`;
  await send('POST', '/user/repos', { name: demoRepository.name, description: 'My first repository on the emulated GitHub.', auto_init: true });
  await send('POST', `${repo}/labels`, { name: 'triage', color: 'fbca04', description: 'Needs a first look' });
  await send('POST', `${repo}/issues`, { title: 'Found a bug', body: "I'm having a problem with this.", labels: ['triage', 'bug'] });
}
