import { describe, expect, it } from 'vitest';
import { buildToolIndex, rankingWeights } from '../../src/search/tool-index.js';
import type { ToolData } from '../../src/index.js';
import { destructive, forum, forumTool, readOnly } from './forum.js';

describe('a repository named by owner and name', () => {
  const tools = forum([
    forumTool('ListForumAppInstallations', 'Lists the installations of an app on a server.', readOnly),
    forumTool('ListForumRepoCollaborators', 'Lists who has access to a repository.', readOnly),
  ]);
  const first = (request: string, weights = rankingWeights) => buildToolIndex(tools.tools, weights).search(request)[0]!.tool.name;

  it('is read as a repository, its words ("app", "server") counting little', () => {
    expect(first('who has access to acme/app-server')).toBe('ListForumRepoCollaborators');
    expect(first('who has access to acme/app-server', { ...rankingWeights, repositoryName: 1 })).toBe('ListForumAppInstallations');
  });

  it('leaves a branch or a path as its words', () => {
    expect(first('who has access to release/app-server')).toBe('ListForumAppInstallations');
    expect(first('who has access to src/app-server')).toBe('ListForumAppInstallations');
    expect(first('who has access to acme/app-server.ts')).toBe('ListForumAppInstallations');
  });

  it('is read so before the number of one of its issues (acme/app-server#12)', () => {
    expect(first('who has access to acme/app-server#12')).toBe('ListForumRepoCollaborators');
    expect(first('who has access to acme/app-server#12', { ...rankingWeights, repositoryName: 1 })).toBe('ListForumAppInstallations');
  });
});

describe('a repository where a request names a numbered thing in it', () => {
  const tools = forum([
    forumTool('DeleteForumRepositoryLabel', 'Deletes a label from a repository.', destructive),
    forumTool('RemoveForumIssueLabel', 'Removes a label from an issue.'),
  ]);
  const first = (request: string, weights = rankingWeights) => buildToolIndex(tools.tools, weights).search(request)[0]!.tool.name;

  it('is the place of that thing, not what is acted on', () => {
    const request = 'take the wontfix label off issue 301 in acme/web';
    expect(first(request)).toBe('RemoveForumIssueLabel');
    expect(first(request, { ...rankingWeights, repositoryPlace: 1 })).toBe('DeleteForumRepositoryLabel');
  });
});

describe('a number written #231', () => {
  const tools = forum([
    forumTool('ListForumRunnerLabels', 'Lists runner labels.', readOnly),
    forumTool('ListForumIssueLabels', 'Lists the labels on an issue, each with its name, colour and description.', readOnly),
  ]);
  const first = (request: string, weights = rankingWeights) => buildToolIndex(tools.tools, weights).search(request)[0]!.tool.name;

  it('names an issue or a pull request', () => {
    // The learned associations are left out: they know labels of issues better than those of runners.
    const weights = { ...rankingWeights, associations: 0 };
    expect(first('which labels are on #45', weights)).toBe('ListForumIssueLabels');
    expect(first('which labels are on #45', { ...weights, numberSign: 0 })).toBe('ListForumRunnerLabels');
    // As the code sites write it after a repository.
    expect(first('which labels are on acme/web#45', weights)).toBe('ListForumIssueLabels');
    expect(first('which labels are on acme/web#45', { ...weights, numberSign: 0 })).toBe('ListForumRunnerLabels');
  });
});

describe('a request that names a repository', () => {
  const routed = (name: string, description: string, method: 'GET' | 'POST', path: string) => ({
    ...forumTool(name, description, method === 'GET' ? readOnly : undefined),
    http: { method, path },
  });
  const firstOf =
    (tools: ToolData[]) =>
    (request: string, weights = rankingWeights) =>
      buildToolIndex(forum(tools).tools, weights).search(request)[0]!.tool.name;

  it('asks about that repository: a tool of the toolkit whose route names none counts less', () => {
    const first = firstOf([
      routed('CreateForumOrgWebhook', 'Creates a webhook for push events of an organization.', 'POST', '/orgs/{org}/hooks'),
      routed('CreateForumRepoWebhook', 'Creates a webhook for a repository.', 'POST', '/repos/{owner}/{repo}/hooks'),
    ]);
    const request = 'set up a webhook for push events on acme/api';
    expect(first(request)).toBe('CreateForumRepoWebhook');
    expect(first(request, { ...rankingWeights, repositoryScope: 1 })).toBe('CreateForumOrgWebhook');
  });

  it('is no team written by its organization and slug ("the acme/sre team")', () => {
    const first = firstOf([
      routed('ListForumTeamMembers', 'Lists the members of a team.', 'GET', '/orgs/{org}/teams/{team_slug}/members'),
      routed('ListForumRepoTeams', 'Lists the teams with access to a repository.', 'GET', '/repos/{owner}/{repo}/teams'),
    ]);
    expect(first('who is on the acme/sre team')).toBe('ListForumTeamMembers');
    expect(first('which teams can reach acme/sre')).toBe('ListForumRepoTeams');
  });
});
