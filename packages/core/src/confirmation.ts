/**
 * Confirmation of destructive calls, when a server asks for it: a destructive tool is listed with an
 * extra `confirm` parameter and refuses to run until it is true, so that a model has to stop and ask
 * the user before deleting anything. The parameter is the server's, never sent upstream. Where the
 * caller can ask the person itself (an MCP client with form elicitation), a call without `confirm: true`
 * is put to the person instead, and their answer decides.
 */
import { toolError, type ToolError } from './errors.js';
import { annotationsOf, qualifiedName, type JsonSchema, type Tool } from './tool.js';

export const confirmName = 'confirm';

export const confirmSchema: JsonSchema = {
  type: 'boolean',
  description: 'This tool deletes or irreversibly changes data. Set true only after the user has confirmed this exact action.',
};

/** Destructive, and without a `confirm` parameter of its own. */
export const needsConfirmation = (tool: Tool): boolean =>
  annotationsOf(tool).destructiveHint && !tool.parameters.some((parameter) => parameter.name === confirmName);

/**
 * Asks the person, not the model, whether this exact call may run: true when they accepted, false when
 * they declined or cancelled, undefined when they could not be asked (the model's `confirm` then decides).
 */
export type ConfirmWithPerson = (tool: Tool, args: Record<string, unknown>) => Promise<boolean | undefined>;

/** The refusal of a call the person declined. */
export const declinedByPerson = (tool: Tool): { error: ToolError } =>
  toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${qualifiedName(tool)} is destructive and the user declined it when asked to confirm; nothing was done.`, {
    additional_prompt_content: `Do not call ${qualifiedName(tool)} again for this action unless the user asks for it.`,
    developer_message: 'Refused by --confirm-destructive: the person declined the confirmation request.',
  });

/** What the person is shown to confirm: the tool and its arguments, with every secret-looking value left out. */
export function confirmationMessage(tool: Tool, args: Record<string, unknown>): string {
  return `${qualifiedName(tool)} deletes or irreversibly changes data. Run it with these arguments?\n\n${JSON.stringify(withoutSecrets(args), null, 2)}`;
}

export const OMITTED = '[omitted]';

/** Names of arguments that carry credentials, and values shaped like one (a bearer, a JWT, a known token prefix, a long mixed-case key). */
const secretName = /pass(word|wd|phrase)?$|secret|token|api[-_]?key|^auth(orization)?$|credential|private[-_]?key|cookie|session/i;
const secretValue = /^(bearer|basic)\s|^eyJ[\w-]+\.|^(ghp_|gho_|ghs_|ghu_|github_pat_|sk-|xox[abpr]-|AKIA)|:\/\/[^/@\s]+:[^/@\s]+@/i;
const keyLike = (text: string) => text.length >= 24 && !/\s/.test(text) && /[a-z]/.test(text) && /[A-Z]/.test(text) && /\d/.test(text);

function withoutSecrets(value: unknown, name = ''): unknown {
  if (name && secretName.test(name)) return OMITTED;
  if (typeof value === 'string') return secretValue.test(value) || keyLike(value) ? OMITTED : value;
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutSecrets(item, key)]));
  return value;
}

/** The refusal of an unconfirmed call, or undefined when `confirm` is true. */
export function unconfirmed(tool: Tool, args: Record<string, unknown>): { error: ToolError } | undefined {
  if (args[confirmName] === true) return undefined;
  return toolError('TOOL_RUNTIME_BAD_INPUT_VALUE', `${qualifiedName(tool)} is destructive and was not confirmed; nothing was done.`, {
    additional_prompt_content: `Ask the user to confirm this exact action. Only if they agree, call ${qualifiedName(tool)} again with the same arguments and confirm: true.`,
    developer_message: 'Refused by --confirm-destructive: confirm was not true.',
  });
}
