/**
 * RepoHostApi: the toolkit catalog, from the interface in catalog/RepoHostApi.json (names, types,
 * required flags, enums and placement, which are authoritative) and GitHub's description of
 * Enterprise Server 3.8 (npm @octokit/openapi, generated/ghes-3.8.json, MIT), which supplies the rest:
 * item types of arrays, formats, request-body schemas of the mode-driven tools, content types, token
 * scopes, and the text our short descriptions are derived from.
 */
import { resolve } from 'node:path';
import type { Annotations, JsonSchema, Parameter, ParameterLocation, ToolData, ToolkitData } from '../../packages/core/src/tool.js';
import type { GeneratedFile } from '../generate.js';
import { cut, joinWithin, repeats, restates, sentencesOf, terminated } from './repo-host-text.js';
import { descriptionFile } from './descriptions.js';
import { catalogFile, mapSchema, modeParameters, neededToExecute, readJson, simplify, type CatalogTool } from './shared.js';

const toolkitDir = 'packages/toolkits/src/repo-host';
const baseUrlSecret = 'GIT_SERVER_URL';

const toolkitDescription =
  'GitHub REST API (as on GitHub Enterprise Server 3.8): repositories, git data, issues, pull requests, reactions, ' +
  'Actions runners and secrets, deployments, checks, projects, teams, users and enterprise administration. ' +
  'Repository, owner, organization and user names are not case sensitive. ' +
  `Set ${baseUrlSecret} to https://HOST/api/v3 to use an Enterprise Server instead of https://api.github.com.`;

/** Every tool sends these; GitHub asks for its media type and refuses requests without a user agent. */
const headers = { accept: 'application/vnd.github+json', 'user-agent': 'quiver' };

/**
 * Where the HTTP method misleads. The POSTs below only read or render; the PATCH, POST and PUTs below
 * destroy something or take access away; the DELETEs below lift a lock or a suspension.
 */
const annotationOverrides: Record<string, Partial<Annotations>> = {
  RenderMarkdown: { readOnlyHint: true, idempotentHint: true }, // renders text, stores nothing
  RenderMarkdownPlain: { readOnlyHint: true, idempotentHint: true }, // renders text, stores nothing
  CheckRepohostTokenValidity: { readOnlyHint: true, idempotentHint: true }, // POST so that the token stays out of the URL
  GenerateRepohostReleaseNotes: { readOnlyHint: true, idempotentHint: true }, // returns generated text, saves no release
  ResetRepohostOauthToken: { destructiveHint: true }, // the old token stops working at once
  TransferRepohostRepository: { destructiveHint: true }, // the repository leaves the owner's account
  SuspendRepohostUser: { destructiveHint: true }, // the user loses all access at once
  SuspendRepohostAppInstallation: { destructiveHint: true }, // the app loses all access at once
  ConvertMemberToOutsideCollaborator: { destructiveHint: true }, // removes the member from the organization and its teams
  UnlockRepohostIssue: { destructiveHint: false }, // removes a lock
  UnlockRepohostRepoForOrgMigration: { destructiveHint: false }, // removes a lock
  UnsuspendRepohostUser: { destructiveHint: false }, // lifts a suspension
  RemoveRepohostAppSuspension: { destructiveHint: false }, // lifts a suspension
};

/**
 * Where the catalog's binding cannot be used as it stands.
 * - CompareRepohostCommits: the catalog pairs the path `.../compare/{base}...{head}` with one parameter
 *   `basehead` (`BASE...HEAD`); the description's `.../compare/{basehead}` is the same URL with one
 *   placeholder, so the parameter fills it.
 */
const pathOverrides: Record<string, string> = {
  CompareRepohostCommits: '/repos/{owner}/{repo}/compare/{basehead}',
};

/**
 * The catalog leaves these parameters without a placement: the path's `{name}` collides with the body
 * field `name` (the new name of the variable), and the catalog places only the body field.
 */
const placementFixes: Record<string, { in: ParameterLocation; upstream: string }> = {
  'UpdateRepohostActionsEnvVar.variable_name': { in: 'path', upstream: 'name' },
  'UpdateRepohostOrgActionVariable.variable_name': { in: 'path', upstream: 'name' },
  'UpdateRepohostRepoVariable.variable_name': { in: 'path', upstream: 'name' },
};

/**
 * Parameters described in our own words: the ghes-3.8 description does not document them, or says
 * the same of two of them (the variable updates' path `{name}` and body `name`).
 */
const parameterDescriptions: Record<string, string> = {
  'CompareRepohostCommits.base_and_head_branch_comparison':
    'The two refs to compare as BASE...HEAD; for branches in other repositories of the same network use USERNAME:BASE...USERNAME:HEAD.',
  'CreateGitReference.authentication_token': 'Sent as the body field `key`, which GitHub does not document for this operation; leave it unset.',
  'ListCodeScanningAlerts.filter_by_severity': 'Only alerts of this severity: critical, high, medium, low, warning, note or error.',
  'UpdateRepohostActionsEnvVar.variable_name': 'The current name of the variable to update. Needed: it is part of the URL.',
  'UpdateRepohostActionsEnvVar.variable_identifier': 'A new name for the variable; leave unset to keep the name.',
  'UpdateRepohostOrgActionVariable.variable_name': 'The current name of the variable to update. Needed: it is part of the URL.',
  'UpdateRepohostOrgActionVariable.var_name': 'A new name for the variable; leave unset to keep the name.',
  'UpdateRepohostRepoVariable.variable_name': 'The current name of the variable to update. Needed: it is part of the URL.',
  'UpdateRepohostRepoVariable.env_variable_name': 'A new name for the variable; leave unset to keep the name.',
};

/** Tools whose derived description would mislead: each says why. */
const toolDescriptions: Record<string, string> = {
  // The catalog gives this tool no parameter for the Markdown text, so it can only send an empty body.
  RenderMarkdownPlain:
    'Render a Markdown document in raw mode (plain text in, HTML out, no GitHub Flavored Markdown). This tool takes no input and ' +
    'sends an empty document; to render a given text use RenderMarkdown with rendering_mode "markdown".',
  // The description speaks of `:base` and `:head` path segments; the tool takes them as one parameter.
  CompareRepohostCommits:
    'Compare two commits, branches or tags given as BASE...HEAD: the commits between them, their status (ahead, behind, diverged) ' +
    'and the changed files. Paginated (max 100 commits per page); branches in forks of the same network take USERNAME:BRANCH.',
};

/**
 * Titles where GitHub's summary will not do as one: its root's summary is a heading ("GitHub API Root"), and these
 * summaries are the tool's name in words ("List pull requests"), where the title says what the tool acts on.
 */
const titleOverrides: Record<string, string> = {
  GetRepohostRootLinks: 'Get the API root links',
  AddAppAccessRestrictions: 'Allow apps to push to a protected branch',
  AddProjectCollaborator: 'Add a collaborator to a project',
  DeleteAdminBranchProtection: 'Stop enforcing branch protection for admins',
  DeleteBranchProtection: 'Remove the protection of a branch',
  DeleteTeamDiscussionCommentReaction: 'Delete a reaction to a team discussion comment',
  DownloadWorkflowRunLogs: 'Download the logs of a workflow run',
  GetAllAuthorizedSshKeys: "List the management console's authorized SSH keys",
  GetCommentStatistics: 'Get comment statistics of the enterprise',
  GetHooksStatistics: 'Get webhook statistics of the enterprise',
  GetLicenseInformation: "Get the enterprise's license information",
  GetMilestoneStatistics: 'Get milestone statistics of the enterprise',
  GetPullRequestReviewProtection: 'Get the required pull request reviews of a branch',
  GetPullRequestStatistics: 'Get pull request statistics of the enterprise',
  GetRepositoryStatistics: 'Get repository statistics of the enterprise',
  ListCheckRunAnnotations: 'List the annotations of a check run',
  ListChildTeams: 'List the child teams of a team',
  ListCodeownersErrors: "List the errors in a repository's CODEOWNERS file",
  ListCommitComments: 'List the comments on a commit',
  ListDeploymentBranchPolicies: 'List the deployment branch policies of an environment',
  ListGistComments: 'List the comments on a gist',
  ListGistCommits: 'List the commits of a gist',
  ListGistForks: 'List the forks of a gist',
  ListGlobalWebhooks: "List the enterprise's global webhooks",
  ListOrganizationProjects: 'List the projects of an organization',
  ListOrganizationRepositories: 'List the repositories of an organization',
  ListOrganizationWebhooks: 'List the webhooks of an organization',
  ListPersonalAccessTokens: "List every user's personal access tokens",
  ListPreReceiveEnvironments: 'List the pre-receive hook environments',
  ListPreReceiveHooks: "List the enterprise's pre-receive hooks",
  ListProjectCards: 'List the cards in a project column',
  ListProjectCollaborators: 'List the collaborators of a project',
  ListPullRequests: 'List pull requests on a repository',
  ListRepositoryProjects: 'List the projects of a repository',
  ListRepositoryTeams: 'List the teams with access to a repository',
  ListRepositoryWebhooks: 'List the webhooks of a repository',
  ListRequiredWorkflows: "List an organization's required workflows",
  ListSecurityManagerTeams: "List an organization's security manager teams",
  ListStarredGists: 'List starred gists of the authenticated user',
  ListTeamRepositories: 'List the repositories of a team',
  ListUserMigrations: 'List migrations of the authenticated user',
  ListUserProjects: 'List the projects of a user',
  RemoveStatusCheckProtection: 'Remove the required status checks of a branch',
  SetAdminBranchProtection: 'Enforce branch protection for admins',
  UpdateBranchProtection: 'Update the protection of a branch',
  UpdatePullRequestReviewProtection: 'Update the required pull request reviews of a branch',
};

/**
 * Summaries that several operations share get the area in brackets so that the tools stay apart
 * ("Get a repository secret (Dependabot)" / "(GitHub Actions)").
 */
const areaNames: Record<string, string> = { actions: 'GitHub Actions', dependabot: 'Dependabot', git: 'Git database', repos: 'repository commits' };

/**
 * GitHub's OAuth token scopes. Descriptions name app permissions the same way (`checks:write`), so only
 * these count as scopes.
 */
const oauthScopes = new Set([
  'repo',
  'repo:status',
  'repo_deployment',
  'public_repo',
  'repo:invite',
  'security_events',
  'admin:repo_hook',
  'write:repo_hook',
  'read:repo_hook',
  'admin:org',
  'write:org',
  'read:org',
  'admin:public_key',
  'write:public_key',
  'read:public_key',
  'admin:org_hook',
  'gist',
  'notifications',
  'user',
  'read:user',
  'user:email',
  'user:follow',
  'project',
  'read:project',
  'delete_repo',
  'write:packages',
  'read:packages',
  'delete:packages',
  'admin:gpg_key',
  'write:gpg_key',
  'read:gpg_key',
  'codespace',
  'workflow',
  'write:discussion',
  'read:discussion',
  'admin:enterprise',
  'manage_runners:enterprise',
  'manage_billing:enterprise',
  'read:enterprise',
  'audit_log',
  'read:audit_log',
  'admin:ssh_signing_key',
  'write:ssh_signing_key',
  'read:ssh_signing_key',
  'site_admin',
  'admin:pre_receive_hook',
]);

const toolLimit = 400;
const parameterLimit = 200;

type Node = Record<string, unknown>;

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  parameters?: Node[];
  requestBody?: Node;
  responses: Record<string, Node>;
}

interface Description {
  paths: Record<string, Record<string, unknown> & { parameters?: Node[] }>;
}

export function generateRepoHost(sharedDir: string): GeneratedFile[] {
  const catalog = readJson(resolve(sharedDir, 'catalog/RepoHostApi.json')) as { toolkit: string; default_base_url: string; tools: CatalogTool[] };
  const spec = readJson(descriptionFile('@octokit/openapi/generated/ghes-3.8.json')) as Description;
  const { deref, shallow } = dereferencer(spec);

  const summaries = new Map<string, number>();
  const operations = catalog.tools.map((tool) => operationOf(spec, tool));
  for (const { summary } of operations) summaries.set(summary, (summaries.get(summary) ?? 0) + 1);

  const tools = catalog.tools.map((tool, index): ToolData => {
    const operation = operations[index]!;
    const where = `RepoHostApi.${tool.name}`;
    const pathItem = spec.paths[tool.path]!;
    const upstreamParameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => deref(p) as Node);
    const requestBody = deref(operation.requestBody ?? {}) as { required?: boolean; content?: Record<string, { schema: JsonSchema }> };
    const content = requestBody.content ?? {};
    const [contentType, media] = Object.entries(content)[0] ?? [];
    const body = media ? (simplify(deref(media.schema)) as JsonSchema) : undefined;

    const shared = summaries.get(operation.summary)! > 1;
    const area = operation.operationId.split('/')[0]!;
    // The summary is the tool's title as GitHub words it ("Create an issue"), and its description's first sentence.
    const title = titleOverrides[tool.name] ?? plainSummary(operation.summary) + (shared ? ` (${areaNames[area] ?? area})` : '');
    const summary = terminated(plainSummary(operation.summary) + (shared ? ` (${areaNames[area] ?? area})` : ''));
    const scopes = scopesOf(operation.description);
    const description = toolDescriptions[tool.name] ?? describedTool(tool.name, summary, operation.description, shared, tool.path, scopes);

    const parameters = tool.params.map((param): Parameter => {
      const modeParameter = modeParameters[param.name as keyof typeof modeParameters] as Parameter | undefined;
      if (tool.mode_driven && modeParameter && !param.in) return { ...modeParameter, required: param.required };
      const placement = param.in ? { in: param.in, upstream: param.upstream! } : placementFixes[`${tool.name}.${param.name}`];
      if (!placement) throw new Error(`${where}: parameter ${param.name} has no placement`);
      const upstream =
        placement.in === 'body' ? bodyField(body, placement.upstream) : upstreamParameters.find((p) => p.in === placement.in && p.name === placement.upstream);
      const upstreamSchema = (placement.in === 'body' ? upstream : upstream?.schema) as Node | undefined;
      const text = parameterDescriptions[`${tool.name}.${param.name}`] ?? (upstream && parameterDescription(upstream, upstreamSchema, param));
      if (!text) throw new Error(`${where}: parameter ${param.name} (${placement.in} ${placement.upstream}) is not in the description`);
      const description = neededToExecute(tool, param.required, placement.in, text) ? `${text} Required for execute.` : text;
      return { name: param.name, description, required: param.required, schema: parameterSchema(param, upstreamSchema, where), ...placement };
    });

    const path = pathOverrides[tool.name] ?? tool.path;
    for (const [, name] of path.matchAll(/\{(\w+)\}/g)) {
      if (!parameters.some((p) => p.in === 'path' && p.upstream === name)) throw new Error(`${where}: no parameter fills {${name}} in ${path}`);
    }

    const data: ToolData = {
      name: tool.name,
      title,
      description,
      parameters,
      output: { description: outputDescription(operation, shallow) },
      requirements: { oauth2: { provider: 'github', scopes }, secrets: [{ key: baseUrlSecret, optional: true }] },
      http: {
        method: tool.method,
        path,
        // Mode-driven tools carry theirs in requestBody.
        ...(contentType && !tool.mode_driven && { contentType }),
        ...(requestBody.required && !tool.mode_driven && { bodyRequired: true }),
        headers,
        baseUrlSecret,
      },
    };
    if (tool.mode_driven) {
      if (!contentType || !body) throw new Error(`${where}: mode-driven without a request body`);
      data.requestBody = { contentType, schema: requestSchema(body, `Request body of ${tool.name}: ${summary}`) };
    }
    if (annotationOverrides[tool.name]) data.annotations = annotationOverrides[tool.name];
    return data;
  });

  // Hand-written data that names no tool or parameter is a typo, or outlived a catalog change.
  const known = new Set(catalog.tools.flatMap((tool) => [tool.name, ...tool.params.map((p) => `${tool.name}.${p.name}`)]));
  const keys = [annotationOverrides, pathOverrides, placementFixes, parameterDescriptions, toolDescriptions, titleOverrides, moreWords].flatMap(Object.keys);
  for (const key of keys) if (!known.has(key)) throw new Error(`RepoHostApi: hand-written data for unknown ${key}`);

  // Tools a model cannot tell apart by their descriptions would be chosen by chance.
  const seen = new Map<string, string>();
  const alike = tools.filter((tool) => seen.has(tool.description) || !seen.set(tool.description, tool.name));
  if (alike.length) throw new Error(`RepoHostApi: same description as another tool: ${alike.map((t) => `${t.name} (${seen.get(t.description)})`).join(', ')}`);

  const toolkit: ToolkitData = { name: catalog.toolkit, version: '1.0.0', description: toolkitDescription, baseUrl: catalog.default_base_url, tools };
  return [catalogFile(toolkitDir, toolkit)];
}

/**
 * The description's operation for a catalog tool, found by method and path and checked against the
 * catalog's operation label (the catalog writes "repohost" where GitHub's ids say "github").
 */
function operationOf(spec: Description, tool: CatalogTool): Operation {
  const operation = spec.paths[tool.path]?.[tool.method.toLowerCase()] as Operation | undefined;
  const where = `RepoHostApi.${tool.name}`;
  if (!operation) throw new Error(`${where}: ${tool.method} ${tool.path} is not in the ghes-3.8 description`);
  if (tool.operation !== operation.operationId && tool.operation !== operation.operationId.replace(/github/g, 'repohost')) {
    throw new Error(`${where}: ${tool.method} ${tool.path} is ${operation.operationId}, not ${tool.operation}`);
  }
  // Octokit pads each GHES description with operations of other releases; they answer 501 only.
  if (/does not exist in GitHub Enterprise Server/.test(`${operation.summary} ${operation.description ?? ''}`)) {
    throw new Error(`${where}: ${operation.operationId} does not exist in GitHub Enterprise Server 3.8`);
  }
  return operation;
}

/**
 * Resolves `$ref`s into `#/components/...`, copying. A reference met again inside itself is cut to an
 * open schema `{}` (any value): none of the operations used here is recursive, and an open schema
 * keeps the rest of the tree exact should one become so.
 */
function dereferencer(spec: Description) {
  const resolveRef = (ref: string): unknown =>
    ref
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Node)[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  const walk = (node: unknown, stack: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, stack));
    if (!node || typeof node !== 'object') return node;
    const ref = (node as Node).$ref;
    if (typeof ref === 'string') return stack.includes(ref) ? {} : walk(resolveRef(ref), [...stack, ref]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value, stack)]));
  };
  /** Follows a `$ref` at the top of `node` only, so that nested references keep their names. */
  const shallow = (node: unknown): Node => {
    let out = node as Node;
    while (typeof out?.$ref === 'string') out = resolveRef(out.$ref) as Node;
    return out;
  };
  return { deref: (node: unknown) => walk(node, []), shallow };
}

/** A (dotted) body field's schema, or undefined. */
function bodyField(body: JsonSchema | undefined, dotted: string): Node | undefined {
  let node: Node | undefined = body;
  for (const key of dotted.split('.')) node = (node?.properties as Record<string, Node> | undefined)?.[key];
  return node;
}

/**
 * A parameter's schema: exactly the catalog's type (the interface is the catalog's); its enum, or where
 * the catalog declares none, the values the description enumerates (on the items, for an array);
 * where the description agrees on the type, a useful format and the item type of arrays.
 */
function parameterSchema(param: CatalogTool['params'][number], upstream: Node | undefined, where: string): JsonSchema {
  const schema: JsonSchema = { type: param.type };
  const agrees = upstream?.type === param.type;
  const values = param.enum?.length ? param.enum : allowedValues(param, upstream);
  if (values.length && param.type !== 'array') schema.enum = values;
  if (agrees && typeof upstream.format === 'string' && usefulFormats.has(upstream.format)) schema.format = upstream.format;
  if (param.type === 'array') {
    if (!upstream?.items) throw new Error(`${where}: array parameter ${param.name} has no item type in the description`);
    schema.items = cleanSchema(upstream.items, { descriptions: false });
  }
  return schema;
}

/** The values the description enumerates for a parameter of the catalog's type (for an array, for its items). */
function allowedValues(param: CatalogTool['params'][number], schema: Node | undefined): unknown[] {
  return schema?.type === param.type && Array.isArray(schema?.enum) ? schema.enum.filter((value) => value !== null) : [];
}

const usefulFormats = new Set(['date-time', 'date', 'email', 'uri']);

function parameterDescription(upstream: Node, schema: Node | undefined, param: CatalogTool['params'][number]): string {
  const sentences = sentencesOf(upstream.description as string | undefined).flatMap(ourSentence);
  if (!sentences.length) sentences.push(`The ${String(upstream.name ?? param.upstream).replace(/[_.]/g, ' ')}`);
  // GitHub's thinnest texts ("The sha.", "ref parameter.") say nothing a model can act on.
  if (wordCount(sentences.join(' ')) < 4) sentences.splice(0, sentences.length, thinParameters[param.name] ?? sentences.join(' '));
  return withDefault(joinWithin(sentences, parameterLimit, 2), param.type === 'array' ? undefined : schema?.default);
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** Our words for the parameters GitHub describes in three words or fewer, by parameter name. */
const thinParameters: Record<string, string> = {
  application_id: 'Only check runs created by the GitHub App with this id.',
  archive_format_zip: 'The archive format of the download; must be zip.',
  assignee_username: 'Login of the user to check as a possible assignee.',
  user_assignee: 'Login of the user to check as a possible assignee.',
  branch_or_commit_ref: 'Branch, tag or commit SHA to download; default branch when empty.',
  repository_reference: 'Branch, tag or commit SHA to use (a git ref).',
  build_identifier: 'Numeric id of the Pages build.',
  comment_text: 'Text of the comment, in Markdown.',
  commit_message: 'Message of the commit that makes this change.',
  commit_reference: 'Commit SHA, branch name or tag name (a git ref).',
  reference_specifier: 'Commit SHA, branch name or tag name (a git ref).',
  reference_pattern: 'Ref to match, without refs/, such as heads/main or tags/v1.',
  git_reference: 'Ref to get, without refs/, such as heads/main or tags/v1.',
  git_reference_to_delete: 'Ref to delete, without refs/, such as heads/feature-x.',
  commit_sha: 'Full SHA of the commit the status is for.',
  conduct_code_key: 'Key of the code of conduct, such as contributor_covenant.',
  current_label_name: 'Current name of the label to update.',
  label_name: 'Name of the label, as shown on issues.',
  deployment_id: 'Numeric id of the deployment.',
  deployment_status_id: 'Numeric id of the deployment status.',
  dismissal_event: 'Always DISMISS for a dismissed review.',
  event_id: 'Numeric id of the issue event.',
  external_group_id: 'Numeric id of the external identity provider group.',
  file_or_directory_path: 'Path of the file or directory in the repository.',
  file_path: 'Path of the file in the repository.',
  file_path_in_repository: 'Path of the file in the repository.',
  file_sha_identifier: 'SHA of the blob (file content) to get.',
  tree_sha: 'SHA of the tree, or a branch or tag name.',
  tag_sha: 'SHA of the git tag object.',
  revision_sha: 'SHA of the gist revision to get.',
  gitignore_template_name: 'Name of the .gitignore template, such as Node or Python.',
  include_collaborative_repositories: 'Include issues of repositories you collaborate on.',
  include_owned_repositories: 'Include issues of repositories you own.',
  include_pull_requests: 'Include pull requests as well as issues.',
  organization_repositories: 'Include issues of repositories of your organizations.',
  include_outdated: 'Include installations whose permissions are outdated.',
  include_redelivered_events: 'Include deliveries that were redelivered.',
  include_redeliveries: 'Include deliveries that were redelivered.',
  only_redeliveries: 'Only deliveries that were redelivered.',
  license_key: 'Key of the license, such as mit or apache-2.0.',
  oauth_scopes_list: 'OAuth scopes the impersonation token gets.',
  only_featured_licenses: 'Only the licenses GitHub features.',
  organization_username: 'Login (handle) of the new organization.',
  pagination_token: 'Token of the page to fetch, from the previous page.',
  release_asset_state: 'State of the release asset, such as uploaded.',
  release_tag: 'Git tag name of the release, such as v1.0.0.',
  repohost_app_slug: 'URL-friendly name (slug) of the GitHub App.',
  repository_id: 'Numeric id of the repository.',
  repository_id_for_org_secret: 'Numeric id of the repository.',
  repository_list: 'Names of the repositories to migrate.',
  repository_name: 'Name of the repository to unlock.',
  search_phrase: 'Search phrase that filters the audit log events.',
  sort_reviews: 'Field to sort review comments by.',
  tag_message: 'Message (annotation) of the git tag.',
  target_username: 'Login of the user who may be followed.',
  template_repository_name: 'Name of the template repository.',
  template_repository_owner: 'Owner of the template repository.',
  temporary_code_for_repohost_app: 'Temporary code from the GitHub App manifest flow.',
  user_username: 'Login of the new user account.',
  vulnerable_dependency_scope: 'Scope of the vulnerable dependency: development or runtime.',
  webhook_delivery_id: 'Numeric id of the webhook delivery.',
};

/**
 * Sentences that hundreds of parameters repeat, said shorter (every one is sent with every tool), or
 * once in the toolkit's description. The model never sees GitHub's Link header: the result's
 * next-page hint (`next_page`, built from that header) names the value to pass instead.
 */
const sentenceRewrites: ReadonlyMap<string, string> = new Map([
  ['The name is not case sensitive.', ''],
  ['The name of the repository without the `.git` extension.', 'Repository name, without .git.'],
  ['The account owner of the repository.', 'Owner of the repository.'],
  ['The number of results per page (max 100).', 'Results per page (max 100).'],
  ['Page number of the results to fetch.', 'Page number to fetch.'],
  ['The organization name.', 'Name of the organization.'],
  ['A cursor, as given in the Link header.', "A cursor: the value the previous page's next-page hint (next_page) gives for this parameter."],
]);

const ourSentence = (sentence: string): string[] => {
  const rewritten = sentenceRewrites.get(sentence) ?? sentence;
  return rewritten ? [rewritten] : [];
};

/** Defaults are told, not declared: a `default` keyword would suggest the runtime fills it in. */
function withDefault(text: string, fallback: unknown): string {
  if (fallback === undefined || /\bdefault/i.test(text)) return text;
  const extra = `Default: ${JSON.stringify(fallback)}.`;
  if (!text) return extra;
  return text.length + extra.length < parameterLimit ? `${text} ${extra}` : text;
}

/** The summary as text: links and emphasis out, and no trailing full stop (we add our own). */
const plainSummary = (summary: string) => (sentencesOf(summary)[0] ?? summary).replace(/\.$/, '');

const administrationPath = /^\/(admin|enterprise|setup|manage)\//;
const administratorsOnly = ' Enterprise Server site administrators only.';

/**
 * What a model must know to pick the tool that the summary leaves unsaid: that an Enterprise Server
 * administration endpoint is for site administrators only, and, where GitHub says no more than a summary of
 * a few words ("Create a blob."), our sentence on what the tool acts on, changes or answers (moreWords).
 */
function withContext(name: string, text: string, path: string): string {
  const admin = administrationPath.test(path) && !/administrator/i.test(text) ? administratorsOnly : '';
  const more = moreWords[name];
  if (more && (admin || wordCount(text) >= 6)) throw new Error(`RepoHostApi.${name}: reaches six words without its moreWords entry`);
  if (!more && !admin && wordCount(text) < 6) throw new Error(`RepoHostApi.${name}: "${text}" is under six words; say more in moreWords`);
  return `${text}${more ? ` ${more}` : ''}${admin}`;
}

/**
 * Our second sentence where GitHub says no more than a summary of a few words ("Star a gist."). The summary
 * stays first and as GitHub words it: search weighs it.
 */
const moreWords: Record<string, string> = {
  AcceptRepohostRepoInvitation: 'The authenticated user becomes a collaborator.',
  AddStatusCheckContextsToBranch: 'They must pass before merging into the protected branch.',
  CheckOrgMigrationStatus: 'Its state: pending, exporting, exported or failed.',
  CreateGistComment: 'The comment is Markdown text on the gist.',
  CreateProjectColumn: 'Adds a column to a classic project board.',
  CreateRepohostBlob: "Stores file content in the repository's git database.",
  CreateRepohostMilestone: 'It groups issues and pull requests, with an optional due date.',
  CreateRepohostOrgWebhook: "It posts the organization's events to a URL.",
  CreateRepohostProjectCard: 'A note or an issue in a column of a classic project board.',
  DeclineRepoInvitation: 'The invitation to collaborate is turned down.',
  DeleteBranchProtection: "The branch's rules and required checks are removed.",
  DeleteGistComment: 'The deletion is permanent.',
  DeleteGitReference: 'Removes a branch or tag ref from the repository.',
  DeleteOrgWebhook: 'Its deliveries stop.',
  DeleteProjectCard: 'Removes the card from its classic project board column.',
  DeleteReleaseAsset: 'Removes an uploaded file from a release.',
  DeleteRepoEnvironment: 'Removes a deployment environment from the repository.',
  DeleteRepoInvitation: 'Withdraws an invitation to collaborate before it is accepted.',
  DeleteRepoWebhook: 'Its deliveries stop.',
  DeleteRepohostCommitComment: 'Takes the owner, repository and comment id.',
  DeleteRepohostGist: 'Removes the gist with all its files and comments.',
  DeleteRepohostProjectColumn: 'Removes a column from a classic project board.',
  FetchDeploymentStatusRepohost: 'One state reported for a deployment.',
  FollowRepohostUser: 'The authenticated user follows them.',
  ForkGist: 'Copies the gist to the authenticated user.',
  GetAdminBranchProtectionStatus: "Whether the branch's rules also bind administrators.",
  GetAllRepohostCodesOfConduct: 'The codes a repository can adopt.',
  GetBranchProtectionStatusChecks: 'The checks a protected branch requires before merging.',
  GetCodeOfConduct: 'Its text, by its key.',
  GetCommonlyUsedLicenses: 'Open source licenses with their keys.',
  GetDependabotAlert: 'It reports a vulnerable dependency of the repository.',
  GetGistComment: 'Answers with its body, author and dates.',
  GetGistRevision: 'The gist as it was at one commit.',
  GetOrgWebhookDetails: 'Its URL, events, active state and configuration.',
  GetPullRequestReviewProtection: 'The reviews a protected branch requires before merging.',
  GetRepoSubscription: 'Whether the authenticated user watches the repository.',
  GetRepoTopics: 'The labels that classify the repository.',
  GetRepoWebhook: 'Its URL, events, active state and last response.',
  GetRepohostBranchProtection: 'All the rules of a protected branch.',
  GetRepohostCommitComment: 'Answers with its body, author, path and line.',
  GetRepohostDeployKey: 'An SSH key with access to one repository.',
  GetRepohostDeploymentStatus: 'Its ref, environment and payload.',
  GetRepohostGist: 'Its files with their content.',
  GetRepohostLicense: 'Its text, by its key.',
  GetRepohostRepoBranch: 'Its latest commit and protection.',
  GetRepohostStatusCheckContexts: 'The checks a protected branch requires before merging.',
  GetRepohostUserProfile: 'The account the token belongs to.',
  GetUserGists: 'Their public gists, newest first.',
  ListGistComments: 'The comments on one gist.',
  ListGistCommits: 'The revisions of one gist.',
  ListGistForks: 'The copies made of one gist.',
  ListOrgVariables: 'Paginated, with names, values and update times.',
  ListOrganizationWebhooks: 'The webhooks of one organization.',
  ListPublicOrgEvents: 'Recent activity in the organization.',
  ListPullRequests: 'Open ones by default, in one repository.',
  ListRepohostDeployKeys: 'The SSH keys with access to one repository.',
  ListRepohostDeploymentStatuses: 'The states reported for one deployment.',
  ListRepohostDeployments: 'Filtered by ref, environment or task.',
  ListRepohostEnvironmentVariables: 'The GitHub Actions variables of one deployment environment.',
  ListRepohostMilestones: 'Open ones by default.',
  ListRepohostReleaseAssets: 'The uploaded files of one release.',
  ListRepohostRepoBranches: 'The branches of one repository.',
  ListRepohostRepoForks: 'The copies made of one repository.',
  ListRepohostRepoTags: 'Each with its name and commit SHA, paginated.',
  ListRepohostRepoVariables: 'The GitHub Actions variables of one repository.',
  ListStarredGists: 'The gists the authenticated user has starred.',
  ListUserProjects: 'The classic project boards of one user.',
  MarkRepohostThreadAsRead: 'One notification thread of the authenticated user.',
  MergeRepohostBranch: 'Merges a branch or commit into another branch.',
  MoveProjectCard: 'To another position or column of a classic project board.',
  MoveRepohostProjectColumn: 'To another position in its classic project board.',
  RemoveBranchStatusCheckContexts: 'The protected branch no longer requires them.',
  RemovePullRequestReviewProtection: 'The protected branch no longer requires reviews.',
  RemoveStatusCheckProtection: 'The protected branch no longer requires checks to pass.',
  RenderMarkdown: 'The answer is the rendered HTML.',
  SetBranchStatusCheckContexts: 'Replaces the checks a protected branch requires.',
  StarRepohostGist: 'The gist is starred for the authenticated user.',
  UnfollowRepohostUser: 'The authenticated user stops following them.',
  UnstarRepohostGist: 'The authenticated user no longer stars the gist.',
  UpdateCommitComment: 'Takes the new Markdown body.',
  UpdateGistComment: 'Takes the new Markdown body of the comment.',
  UpdateGitReference: 'Points a branch or tag ref at another commit.',
  UpdateProjectColumn: 'Renames a column of a classic project board.',
  UpdateRepoInvitation: 'Changes the permission it grants.',
  UpdateRepohostMilestone: 'Its title, state, description or due date.',
  UpdateRepohostProjectCard: 'Its note or archived state.',
  UpdateRepohostRepoTopics: 'The labels that classify the repository.',
  UpdateRepohostTeam: 'Its name, description, privacy or parent.',
};

/**
 * The summary, then the description's sentences up to the limit; the summary is left out when the
 * description's first sentence says the same (unless the summary is what sets the tool apart).
 */
function toolDescription(summary: string, markdown: string | undefined, keepSummary: boolean, limit: number): string {
  const sentences = sentencesOf(markdown);
  if (!keepSummary && sentences[0] && restates(summary, sentences[0])) return joinWithin(withoutRepeats(sentences), limit, 3);
  return joinWithin(withoutRepeats([summary, ...sentences]), limit, 3);
}

/** The tool's description: what it does, then who may call it (the role and token scope it needs), within the limit. */
function describedTool(name: string, summary: string, markdown: string | undefined, keepSummary: boolean, path: string, scopes: string[]): string {
  // Room for what comes after the text: the requirement, and the site-administrator note of the administration endpoints.
  const reserve = needsSentence(rolesOf(markdown, ''), scopes).length + (administrationPath.test(path) ? administratorsOnly.length : 0);
  const room = toolLimit - reserve;
  let described = toolDescription(summary, markdown, keepSummary, room);
  // A second sentence too long for the room left is cut rather than left out, where the first alone is too short.
  const full = toolDescription(summary, markdown, keepSummary, toolLimit);
  if (wordCount(described) < 6 && full.length > described.length) described = full.length > room ? cut(full, room) : full;
  const text = withContext(name, described, path);
  return `${text}${needsSentence(
    rolesOf(markdown, text),
    scopes.filter((scope) => !text.includes(scope)),
  )}`;
}

/** " Needs organization owner, and the admin:org scope.", or nothing. */
function needsSentence(roles: string[], scopes: string[]): string {
  const needed = [roles.join(' or '), scopes.length ? `the ${scopes.join(' or ')} scope` : ''].filter(Boolean);
  return needed.length ? ` Needs ${needed.join(', and ')}.` : '';
}

/**
 * The roles GitHub's description says a caller must have, in the sentences that require something of a person (a
 * GitHub App's permissions are no role of the user's), as short names; none where the text names them all already.
 */
function rolesOf(markdown: string | undefined, text: string): string[] {
  const roles: Array<[RegExp, string]> = [
    [/\borganization owners?\b/i, 'organization owner'],
    [/\benterprise (owners?|administrators?)\b/i, 'enterprise owner'],
    [/\brepository administrators?\b|\badmin (access|permissions?|rights)\b/i, 'admin access'],
    [/\bteam maintainers?\b/i, 'team maintainer'],
    [/\b(push|write) access\b/i, 'push access'],
  ];
  const requirements = (markdown ?? '')
    .split(/(?<=[.!?])\s+/)
    // "In order to see the X block, you must ..." asks for a role to see part of the answer, not to call.
    .filter((sentence) => /\b(must|requires?|required|only available to)\b/i.test(sentence) && !/GitHub Apps?\b|installation|\bto see\b/i.test(sentence));
  const required = roles.filter(([pattern]) => requirements.some((sentence) => pattern.test(sentence)));
  // Alternatives stay together ("organization owner or team maintainer") unless the text names them all.
  return required.every(([pattern]) => pattern.test(text)) ? [] : required.map(([, role]) => role);
}

/** The sentences without those that say the first one again; the first stays, as search weighs it. */
function withoutRepeats(sentences: string[]): string[] {
  const [first, ...rest] = sentences;
  return first === undefined ? sentences : [first, ...rest.filter((sentence) => !repeats(first, sentence))];
}

/**
 * Scopes stated in the description: quoted names in the sentences (and the list items under a line
 * ending in "scopes:") that speak of scopes, kept when they are GitHub OAuth scopes.
 */
function scopesOf(markdown: string | undefined): string[] {
  const scopes = new Set<string>();
  const text = (markdown ?? '').replace(/\(e\.g\.[^)]*\)/g, ''); // examples of what other scopes allow
  for (const paragraph of text.split(/\n\s*\n/)) {
    // Sentences wrap across lines; list items stand alone.
    const units: { text: string; isItem: boolean }[] = [];
    for (const line of paragraph.split('\n')) {
      const isItem = /^\s*[*-]\s/.test(line);
      const last = units[units.length - 1];
      if (!isItem && last && !last.isItem) last.text += ` ${line.trim()}`;
      else units.push({ text: line.trim(), isItem });
    }
    let inScopeList = false;
    for (const unit of units) {
      if (!unit.isItem) inScopeList = /scopes?\b/i.test(unit.text) && /:$/.test(unit.text);
      for (const sentence of unit.text.split(/(?<=\.)\s+/)) {
        if (!/\bscopes?\b/i.test(sentence) && !(unit.isItem && inScopeList)) continue;
        const quoted = [...sentence.matchAll(/[`']([^`']+)[`']/g)].flatMap((m) => m[1]!.split(/\s+/));
        const bare = [...sentence.matchAll(/\bthe ([a-z_:]+) scope\b/g)].map((m) => m[1]!);
        for (const name of [...quoted, ...bare]) if (oauthScopes.has(name)) scopes.add(name);
      }
    }
  }
  return [...scopes];
}

/**
 * A short sentence about the success response: created/listed/returned, and what, from the name of
 * the response schema. No response schema goes into the catalog.
 */
function outputDescription(operation: Operation, shallow: (node: unknown) => Node): string {
  const status = Object.keys(operation.responses)
    .filter((code) => code.startsWith('2'))
    .sort()[0];
  if (!status) return 'A redirect (302) to a short-lived download URL; no JSON body.';
  const content = shallow(operation.responses[status]).content as Record<string, { schema?: Node }> | undefined;
  const accepted = 'Accepted (202): processing continues in the background.';
  if (!content) return status === '202' ? accepted : 'Nothing: the status code reports success.';
  const [type, media] = Object.entries(content)[0]!;
  if (!type.includes('json')) return type === 'text/html' ? 'The rendered HTML.' : `The ${type} content.`;
  const raw = (media.schema ?? {}) as Node;
  const what = describeSchema(raw, shallow);
  if (!what) return status === '202' ? accepted : 'An empty JSON object: the status code reports success.';
  const sentence =
    status === '201'
      ? `The created ${what.replace(/^(the|an?) /, '')}`
      : status === '202'
        ? `${capitalise(what)}; processing continues in the background`
        : capitalise(what);
  return terminated(sentence);
}

/** What the response holds, or undefined when it holds nothing of note (an empty object). */
function describeSchema(raw: Node, shallow: (node: unknown) => Node): string | undefined {
  const name = refName(raw);
  if (name === 'empty object') return undefined;
  if (name) return `the ${name}`;
  // Alternatives (the private or the public user) are told as such; an allOf is its first, named part.
  const branches = (raw.oneOf ?? raw.anyOf) as Node[] | undefined;
  if (Array.isArray(branches)) {
    const told = [...new Set(branches.map((branch) => describeSchema(branch, shallow)).filter(Boolean))];
    return told.length ? told.join(' or ') : undefined;
  }
  if (Array.isArray(raw.allOf)) return describeSchema((raw.allOf as Node[])[0]!, shallow);
  if (raw.type === 'object' && raw.additionalProperties && !raw.properties) return 'an object of names to values';
  if (raw.type === 'array') {
    const item = refName(raw.items as Node);
    const type = (raw.items as Node | undefined)?.type;
    return item ? `a list of ${plural(item)}` : typeof type === 'string' ? `a list of ${plural(type)}` : 'a list';
  }
  const fields = (raw.properties ?? {}) as Record<string, Node>;
  const properties = Object.keys(fields);
  const listed = properties.find((key) => shallow(fields[key]).type === 'array');
  if (properties.includes('total_count') && listed) {
    const item = refName(shallow(fields[listed]).items as Node | undefined);
    return `a page of ${item ? plural(item) : listed.replace(/_/g, ' ')} with the total count`;
  }
  if (properties.length) return `an object with ${properties.slice(0, 3).join(', ')}${properties.length > 3 ? ', ...' : ''}`;
  return undefined;
}

/** "full-repository" -> "repository": the component's name without its size or nullability mark. */
function refName(node: Node | undefined): string | undefined {
  const ref = node?.$ref;
  if (typeof ref !== 'string') return undefined;
  return ref
    .split('/')
    .pop()!
    .replace(/^(full|minimal|simple|nullable)-|-(simple|full|minimal)$/g, '')
    .replace(/-/g, ' ');
}

function plural(noun: string): string {
  if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
  if (/(ss|x|ch|sh)$/.test(noun)) return `${noun}es`;
  if (/s$/.test(noun)) return noun; // already plural ("alert items")
  return `${noun}s`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A request-body schema for a mode-driven tool: dereferenced, trimmed to what validation and the model
 * need, and closed. GitHub ignores body fields it does not know, so a misspelt field would be a silent
 * no-op; closing the objects that list their fields turns that into an error the model can fix.
 */
function requestSchema(body: JsonSchema, description: string): JsonSchema {
  const { description: _, ...schema } = close(cleanSchema(body, { descriptions: true })) as JsonSchema;
  return { description, ...schema };
}

/**
 * Drops examples, titles and OpenAPI-only keywords; turns `nullable` into JSON Schema's null type; moves
 * defaults into the (shortened) descriptions.
 */
function cleanSchema(schema: unknown, options: { descriptions: boolean }): JsonSchema {
  return simplify(
    mapSchema(schema, (node) => {
      const { example: _e, examples: _es, title: _t, readOnly: _r, deprecationDate: _d, default: fallback, nullable, description, ...rest } = node;
      const out: Node = Object.fromEntries(Object.entries(rest).filter(([key]) => !key.startsWith('x-')));
      if (options.descriptions) {
        const text = withDefault(joinWithin(sentencesOf(description as string | undefined), parameterLimit, 2), fallback);
        if (text) out.description = text;
      }
      return unfolded(nullable === true ? nullableOf(out) : out);
    }),
  ) as JsonSchema;
}

/**
 * Octokit's description folds one alternative of some bodies into the parent: `{type: array, items,
 * oneOf: [{type: object, ...}]}` (branch protection: an object with `contexts`, or the bare array) can
 * match nothing as written. Where every branch has a type other than the parent's, the parent is one
 * more branch.
 */
function unfolded(node: Node): Node {
  const branches = node.oneOf as Node[] | undefined;
  // Branches without a type of their own (check runs: conditions on the parent's fields) are no alternatives.
  if (!Array.isArray(branches) || typeof node.type !== 'string' || !branches.every((branch) => typeof branch.type === 'string' && branch.type !== node.type))
    return node;
  const { oneOf: _, description, ...own } = node;
  return { ...(description !== undefined && { description }), oneOf: [...branches, own] };
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema. */
function nullableOf(node: Node): Node {
  if (typeof node.type === 'string') {
    const values = node.enum as unknown[] | undefined;
    return { ...node, type: [node.type, 'null'], ...(values && !values.includes(null) && { enum: [...values, null] }) };
  }
  const { description, ...rest } = node;
  return { ...(description !== undefined && { description }), anyOf: [rest, { type: 'null' }] };
}

/**
 * Objects that list their fields accept no others, unless they say otherwise. Unlike shared.ts's
 * authoredSchema, the oneOf/anyOf/allOf branches under an object that lists fields of its own stay
 * open: GitHub uses them to add conditions to the parent's fields (check runs: `status` "completed"
 * needs `conclusion`), and a closed branch would reject every field the parent declares. The parent is
 * closed when its branches name no fields of their own. Branches under a parent without fields are
 * whole alternatives and are closed like any object.
 */
function close(schema: unknown, isCondition = false): unknown {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const node: Node = { ...(schema as Node) };
  const fields = Object.keys((node.properties as Node | undefined) ?? {});
  for (const key of ['items', 'additionalProperties', 'not']) if (node[key] && typeof node[key] === 'object') node[key] = close(node[key]);
  if (node.properties) node.properties = Object.fromEntries(Object.entries(node.properties as Node).map(([k, v]) => [k, close(v)]));
  const branches = ['oneOf', 'anyOf', 'allOf'].flatMap((key) => (Array.isArray(node[key]) ? (node[key] as Node[]) : []));
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map((branch) => close(branch, fields.length > 0));
  }
  const branchFields = branches.flatMap((branch) => Object.keys((branch.properties as Node | undefined) ?? {}));
  const closable = fields.length > 0 && !isCondition && branchFields.every((field) => fields.includes(field));
  if (closable && node.additionalProperties === undefined) node.additionalProperties = false;
  return node;
}
