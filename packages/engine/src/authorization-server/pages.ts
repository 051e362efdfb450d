/**
 * The pages a person sees while an MCP client asks for access: sign in, consent, and errors. Plain
 * HTML, every value escaped; forms post back to the same origin (the interaction cookie is SameSite,
 * so another site cannot post them for the person).
 */

import { escapeHtml } from '../http/html.js';

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Quiver</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}code{background:#f2f2f2;padding:0 .2rem;border-radius:3px;word-break:break-all}
ul{padding-left:1.2rem}form{margin:1rem 0}button{font:inherit;padding:.5rem 1rem;margin-right:.5rem;cursor:pointer}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box;margin:.3rem 0}.muted{color:#666;font-size:.9rem}</style>
</head><body>${body}</body></html>`;
}

/** What the page says about the client asking. */
export interface ClientView {
  name: string;
  clientId: string;
  redirectUri: string;
}

export interface SignInView {
  client: ClientView;
  action: string;
  /** The identity provider's name and where its button goes, when one is configured. */
  identityProvider?: { name: string; href: string };
  /** Signing in with an API key is allowed. */
  keySignIn: boolean;
  error?: string;
}

export function signInPage(view: SignInView): string {
  const { client } = view;
  const ways = [
    view.identityProvider &&
      `<form method="get" action="${escapeHtml(view.identityProvider.href)}">
<button type="submit" id="sign-in-idp">Sign in with ${escapeHtml(view.identityProvider.name)}</button></form>`,
    view.keySignIn &&
      `<form method="post" action="${escapeHtml(view.action)}/key"><label for="key">Or sign in with your Quiver API key</label>
<input id="key" name="key" type="password" autocomplete="off" required><button type="submit" id="sign-in-key">Sign in with key</button></form>`,
  ].filter(Boolean);
  return page(
    'Sign in',
    `<h1>Sign in to Quiver</h1>
<p><strong>${escapeHtml(client.name)}</strong> wants to use Quiver's tools for you. Sign in first.</p>
${view.error ? `<p role="alert"><strong>${escapeHtml(view.error)}</strong></p>` : ''}
${ways.length ? ways.join('\n') : '<p>No way to sign in is configured on this engine: set QUIVER_OIDC_ISSUER.</p>'}
<form method="post" action="${escapeHtml(view.action)}/deny"><button type="submit" id="deny">Cancel</button></form>`,
  );
}

export interface ConsentView {
  client: ClientView;
  action: string;
  userId: string;
  scopes: { name: string; description: string }[];
  resource: string;
}

export function consentPage(view: ConsentView): string {
  const { client } = view;
  return page(
    'Allow access',
    `<h1>Allow ${escapeHtml(client.name)} to use Quiver?</h1>
<p>Signed in as <code>${escapeHtml(view.userId)}</code>.</p>
<p><strong>${escapeHtml(client.name)}</strong> (client <code>${escapeHtml(client.clientId)}</code>) asks to:</p>
<ul>${view.scopes.map((scope) => `<li><code>${escapeHtml(scope.name)}</code>: ${escapeHtml(scope.description)}</li>`).join('')}</ul>
<p class="muted">On <code>${escapeHtml(view.resource)}</code>, with your connected accounts. After you allow, your browser goes back to
<code>${escapeHtml(client.redirectUri)}</code>.</p>
<form method="post" action="${escapeHtml(view.action)}/consent"><button type="submit" id="allow">Allow</button></form>
<form method="post" action="${escapeHtml(view.action)}/deny"><button type="submit" id="deny">Deny</button></form>`,
  );
}

export function errorPage(error: string, description: string): string {
  return page(
    'Cannot continue',
    `<h1>Cannot continue</h1><p><code>${escapeHtml(error)}</code>: ${escapeHtml(description)}</p><p>Start again from your MCP client.</p>`,
  );
}
