/**
 * A realistic support workspace, generated deterministically from a seed: users, teams, contacts, and
 * issues across eight topics (billing, sign-in, API, integrations, performance, mobile, data,
 * feature requests) with varied wording, states, tags and creation times. The same options always
 * give the same workspace, so tests can know what a search over it finds.
 */
import type { ContactInput } from './contacts.js';
import { ISSUE_STATES, type IssueInput } from './issues.js';
import type { UserInput } from './users.js';

export interface WorkspaceOptions {
  /** Issues created within the last 30 days. Default 440, more than the 400 a search indexes. */
  recentIssues?: number;
  /** Issues created 31 to 45 days ago, outside every issue window. Default 40. */
  olderIssues?: number;
  contacts?: number;
  seed?: number;
}

export interface WorkspaceIssue extends Omit<IssueInput, 'created_at' | 'assignee_id' | 'team_id'> {
  /** How long before now the issue was created, in milliseconds. */
  age_ms: number;
  /** The assignee's email and the team's name, resolved to ids when loaded. */
  assignee?: string;
  team?: string;
}

export interface Workspace {
  users: UserInput[];
  teams: Array<{ name: string; members: string[] }>;
  contacts: ContactInput[];
  issues: WorkspaceIssue[];
}

const DAY = 86_400_000;

const users: UserInput[] = [
  ['Ada Lovelace', 'ada@quiver-support.test'],
  ['Grace Hopper', 'grace@quiver-support.test'],
  ['Alan Turing', 'alan@quiver-support.test'],
  ['Katherine Johnson', 'katherine@quiver-support.test'],
  ['Edsger Dijkstra', 'edsger@quiver-support.test'],
  ['Barbara Liskov', 'barbara@quiver-support.test'],
  ['Donald Knuth', 'donald@quiver-support.test'],
  ['Margaret Hamilton', 'margaret@quiver-support.test'],
  ['Radia Perlman', 'radia@quiver-support.test'],
  ['Tim Berners-Lee', 'tim@quiver-support.test'],
].map(([name, email]) => ({ name: name!, email: email! }));

const teams = [
  { name: 'Billing Support', members: ['ada@quiver-support.test', 'grace@quiver-support.test', 'katherine@quiver-support.test'] },
  { name: 'Technical Support', members: ['alan@quiver-support.test', 'edsger@quiver-support.test', 'donald@quiver-support.test', 'radia@quiver-support.test'] },
  { name: 'Customer Success', members: ['barbara@quiver-support.test', 'margaret@quiver-support.test'] },
  { name: 'Enterprise Accounts', members: ['tim@quiver-support.test', 'ada@quiver-support.test'] },
];

/** The n-th body is the description of the n-th title. */
interface Topic {
  tag: string;
  team: string;
  titles: string[];
  bodies: string[];
}

const topics: Topic[] = [
  {
    tag: 'billing',
    team: 'Billing Support',
    titles: [
      'Charged twice for the {plan} plan',
      'Invoice {invoice} shows the wrong amount',
      'Card declined when upgrading to {plan}',
      'Need a copy of the invoice for {month}',
      'Update the billing address for {company}',
      'Question about proration after downgrading',
    ],
    bodies: [
      'We were billed twice this month for the {plan} subscription. Please refund the extra charge to our card.',
      'The amount on invoice {invoice} does not match the quote we signed. Our finance team needs a corrected invoice.',
      'Upgrading to {plan} fails with a card declined message although the card works elsewhere.',
      'Our accountant asks for the invoice of {month} as a PDF with the VAT number of {company}.',
      'Please change the address on our billing profile; the old office is closed.',
      'We moved from {plan} to a smaller plan mid-cycle and would like to understand the proration on the next invoice.',
    ],
  },
  {
    tag: 'login',
    team: 'Technical Support',
    titles: [
      'Cannot sign in after a password reset',
      'SSO sign-in loops back to the login page',
      'Two-factor code is not accepted',
      'Account locked after failed attempts',
      'Invitation link has expired',
    ],
    bodies: [
      'After resetting my password the login page keeps saying the credentials are wrong. I use {browser}.',
      'Our SAML single sign-on with {idp} sends users back to the login page without an error.',
      'The six-digit code from the authenticator app is rejected every time, even right after it appears.',
      'A colleague tried to sign in too many times and now the account at {company} is locked.',
      'The invitation we received for the {company} workspace says the link has expired.',
    ],
  },
  {
    tag: 'api',
    team: 'Technical Support',
    titles: [
      'API returns 500 on the orders endpoint',
      'Rate limit reached earlier than documented',
      'Webhook deliveries fail with a timeout',
      'Pagination cursor skips records',
      'API token stopped working',
    ],
    bodies: [
      'Requests to the orders endpoint answer HTTP 500 since this morning; the request id is {ref}.',
      'We get 429 responses after far fewer requests than the documented limit for the {plan} plan.',
      'Webhook deliveries to our endpoint time out after five seconds although the endpoint answers quickly.',
      'Following the cursor of the list endpoint returns some records twice and skips others.',
      'Our API token answers 401 since this morning although nobody rotated it.',
    ],
  },
  {
    tag: 'integrations',
    team: 'Technical Support',
    titles: [
      'Salesforce sync stopped updating accounts',
      'Slack notifications are not arriving',
      'Jira integration creates duplicate tickets',
      'HubSpot contacts are not imported',
      'Zapier trigger fires twice',
    ],
    bodies: [
      'Since {month} the Salesforce sync no longer updates account owners; the log shows a permissions error.',
      'New conversations no longer post to our Slack channel, although the integration shows as connected.',
      'Every escalation creates two Jira tickets with the same summary.',
      'The HubSpot import finishes but none of the contacts appear in the workspace.',
      'The Zapier trigger for new conversations fires two times for every message.',
    ],
  },
  {
    tag: 'performance',
    team: 'Technical Support',
    titles: ['Dashboard takes a minute to load', 'Search is slow in large workspaces', 'Report generation times out', 'Editor lags when typing'],
    bodies: [
      'The main dashboard takes about a minute to load for everyone at {company} using {browser}.',
      'Searching in our workspace with many records takes more than ten seconds.',
      'The quarterly report never finishes generating and ends with a timeout message.',
      'Typing in the editor lags by a second in long documents, in {browser} as well.',
    ],
  },
  {
    tag: 'mobile',
    team: 'Technical Support',
    titles: [
      'iOS app crashes on launch',
      'Android push notifications are delayed',
      'Mobile app signs me out every day',
      'Attachments do not open on the tablet',
    ],
    bodies: [
      'The iOS app closes right after the splash screen since the latest update.',
      'Push notifications on Android arrive hours after the message was sent.',
      'The mobile app asks me to sign in again every morning.',
      'PDF attachments open as a blank page in the tablet app.',
    ],
  },
  {
    tag: 'data',
    team: 'Customer Success',
    titles: [
      'CSV export is missing columns',
      'Imported contacts show broken characters',
      'Restore a deleted project',
      'Merge two duplicate accounts',
      'Change the workspace owner',
    ],
    bodies: [
      'The CSV export leaves out the custom columns we added last quarter.',
      'Names with accents look garbled after importing our spreadsheet of contacts.',
      'A teammate deleted the {company} project by mistake yesterday; can it be restored?',
      'We have two accounts for {company} and would like their history merged into one.',
      'Our workspace owner has left {company}; please make me the owner.',
    ],
  },
  {
    tag: 'feature-request',
    team: 'Customer Success',
    titles: ['Request: dark mode for the editor', 'Request: bulk edit of tags', 'Request: custom fields on reports', 'Request: export dashboards to slides'],
    bodies: [
      'Several people on our team would love a dark theme for long editing sessions.',
      'Editing tags one record at a time is tedious; a bulk edit would save hours.',
      'It would help to show our custom fields as columns in the standard reports.',
      'We present our dashboards every week and would like to export them to slides.',
    ],
  },
];

const fillers: Record<string, string[]> = {
  plan: ['Starter', 'Growth', 'Business', 'Enterprise'],
  invoice: ['INV-1043', 'INV-2210', 'INV-3307', 'INV-4481', 'INV-5126'],
  month: ['January', 'February', 'March', 'April', 'May', 'June'],
  company: ['Northwind', 'Contoso', 'Globex', 'Initech', 'Umbrella Foods', 'Stark Logistics', 'Wayne Media'],
  browser: ['Firefox', 'Chrome', 'Safari', 'Edge'],
  idp: ['Okta', 'Azure AD', 'Google Workspace', 'OneLogin'],
  ref: ['req-7f3a', 'req-19bc', 'req-c442', 'req-a0d9'],
};

const firstNames = [
  'Maria',
  'James',
  'Wei',
  'Fatima',
  'Lucas',
  'Aisha',
  'Noah',
  'Elena',
  'Kenji',
  'Olivia',
  'Mateo',
  'Priya',
  'Liam',
  'Sofia',
  'Omar',
  'Chloe',
];
const lastNames = ['Garcia', 'Smith', 'Chen', 'Khan', 'Silva', 'Okafor', 'Müller', 'Rossi', 'Tanaka', 'Brown', 'Novak', 'Patel'];

/** mulberry32: a small, well-spread generator; deterministic for a seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

for (const topic of topics) if (topic.titles.length !== topic.bodies.length) throw new Error(`workspace: topic ${topic.tag} needs a body per title`);

export function supportWorkspace({ recentIssues = 440, olderIssues = 40, contacts = 60, seed = 1 }: WorkspaceOptions = {}): Workspace {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const fill = (template: string) => template.replace(/\{(\w+)\}/g, (_, name: string) => pick(fillers[name]!));

  const people: ContactInput[] = [];
  for (let i = 0; i < contacts; i++) {
    const first = firstNames[i % firstNames.length]!;
    const last = lastNames[Math.floor(i / firstNames.length) % lastNames.length]!;
    const company = fillers.company![i % fillers.company!.length]!;
    const domain = `${company.toLowerCase().replace(/\W+/g, '')}.example`;
    const local = `${first}.${last}`
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^\w.]/g, '');
    people.push({ name: `${first} ${last}`, email: `${local}@${domain}`, account_id: `acct-${company.toLowerCase().replace(/\W+/g, '-')}` });
  }

  const issues: WorkspaceIssue[] = [];
  const make = (age: number): WorkspaceIssue => {
    const topic = pick(topics);
    const team = teams.find((candidate) => candidate.name === topic.team)!;
    const which = Math.floor(next() * topic.titles.length);
    const urgent = next() < 0.15;
    return {
      title: fill(topic.titles[which]!),
      body_html: `<p>${fill(topic.bodies[which]!)}</p>`,
      age_ms: age,
      state: pick(ISSUE_STATES),
      tags: urgent ? [topic.tag, 'urgent'] : [topic.tag],
      team: team.name,
      ...(next() < 0.8 && { assignee: pick(team.members) }),
      source: pick(['email', 'slack', 'chat_widget', 'form'] as const),
    };
  };
  // Recent ones stay clear of the 30-day edge, so that a window computed a moment later still holds them.
  for (let i = 0; i < recentIssues; i++) issues.push(make(Math.floor(next() * 29.5 * DAY)));
  for (let i = 0; i < olderIssues; i++) issues.push(make(31 * DAY + Math.floor(next() * 14 * DAY)));
  return { users, teams, contacts: people, issues };
}
