/**
 * API vocabulary that users and tool descriptions spell differently. Every word of a group stands for
 * the group's first word, in the index and in queries alike, so that "remove a repository" and
 * `DeleteRepohostRepo` meet on the same terms. Groups hold words that mean the same thing to someone
 * asking for a tool; words whose sense depends on the sentence ("open", "set", "tag") are left out.
 */
export const synonyms: readonly (readonly string[])[] = [
  ['create', 'add', 'new', 'make', 'insert', 'start', 'begin', 'initiate'],
  ['delete', 'remove', 'destroy', 'erase', 'drop', 'trash', 'deregister', 'unregister'],
  ['list', 'enumerate', 'browse'],
  ['get', 'fetch', 'retrieve', 'read', 'show', 'view', 'see', 'display', 'lookup'],
  ['update', 'edit', 'change', 'modify', 'patch', 'alter', 'amend'],
  ['detail', 'details', 'info', 'information'],
  ['search', 'find', 'query'],
  ['request', 'ask'],
  ['copy', 'clone', 'duplicate'],
  ['batch', 'bulk', 'multiple', 'several', 'many'],
  ['execute', 'run', 'invoke', 'call'],
  ['download', 'export'],
  ['cancel', 'abort'],
  ['unlink', 'disassociate', 'dissociate', 'detach'],
  ['link', 'associate', 'attach', 'connect'],
  ['subscribe', 'watch'],
  ['unsubscribe', 'optout', 'unwatch'],
  ['repo', 'repository'],
  ['pr', 'pull_request'],
  ['issue', 'ticket', 'bug'],
  ['org', 'organization', 'organisation'],
  ['email', 'mail', 'message', 'e_mail'],
  // A question about who asks for people; I, me and my are the user the token belongs to.
  ['user', 'member', 'person', 'people', 'customer', 'who'],
  ['me', 'i', 'my', 'mine', 'myself', 'authenticated', 'logged_in', 'signed_in'],
  ['auth', 'authorization', 'authorize', 'authorise'],
  ['file', 'document', 'doc'],
  ['comment', 'note', 'remark'],
  ['hook', 'webhook', 'web_hook'],
  ['folder', 'directory', 'dir'],
  ['statistics', 'stats', 'analytics'],
  ['favorite', 'favourite', 'star', 'stargazer'],
  ['subscriber', 'watcher'],
  // A git branch is a ref (refs/heads/...): the git-data tools speak of references.
  ['ref', 'reference', 'branch'],
];

/**
 * Word sequences read as one word before the groups apply (the underscore joins a phrase that the
 * groups above name as one word).
 */
export const phrases: ReadonlyMap<string, string> = new Map([
  ['pull request', 'pull_request'],
  ['merge request', 'pull_request'],
  ['web hook', 'web_hook'],
  ['e mail', 'e_mail'],
  ['opt out', 'optout'],
  ['look up', 'lookup'],
  ['pull up', 'show'],
  ['get rid', 'delete'],
  ['re run', 'rerun'],
  ['at once', 'batch'],
  ['logged in', 'logged_in'],
  ['signed in', 'signed_in'],
  ['get all', 'list'],
  ['show all', 'list'],
  ['list all', 'list'],
  ['fetch all', 'list'],
  ['show me', 'show'],
  ['give me', 'get'],
  ['tell me', 'get'],
]);

/** Words that say nothing about which tool is wanted. */
export const stopWords: ReadonlySet<string> = new Set(
  (
    'a an the of to for in on at by with from into onto and or but is are was were be been being it its this that these those ' +
    'we you your our us they them their he she his her can could would should will shall please want need let lets ' +
    'some any what which there here do does did just about as so via using has have had am how whether if then than ' +
    'all every each one s t now yet still already also too again ever really actually currently lately maybe'
  ).split(' '),
);
