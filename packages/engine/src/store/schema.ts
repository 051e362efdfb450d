/**
 * The engine's tables as Kysely sees them. Times are ISO 8601 strings (they sort and compare the same
 * on SQLite and PostgreSQL); JSON is kept as text; secret material only ever as vault ciphertext.
 */
import type { Generated } from 'kysely';

export interface ApiKeyTable {
  id: string;
  name: string;
  /** SHA-256 of the key: the key itself is shown once, at creation. */
  key_hash: string;
  /** The first characters of the key, to tell keys apart in listings. */
  prefix: string;
  /** admin, service or user (see security/api-keys.ts). */
  role: string;
  /** The one user a user key acts as; null for admin and service keys. */
  user_id: string | null;
  /** The key's own requests a minute and tool calls in flight (0: none); null: its role's. */
  limit_rpm: number | null;
  limit_concurrency: number | null;
  created_at: string;
  /** Moves on every change of the key (made, revoked, limits changed); not on use. */
  updated_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface SecretTable {
  id: string;
  key: string;
  description: string;
  value_ciphertext: string;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
}

export interface AuthProviderTable {
  id: string;
  description: string;
  provider_id: string;
  type: string;
  /** JSON of the oauth2 settings, client secret excluded. */
  oauth2: string;
  client_secret_ciphertext: string | null;
  created_at: string;
  updated_at: string;
}

export interface AuthorizationTable {
  id: string;
  user_id: string;
  provider_id: string;
  /** JSON array of the scopes asked for. */
  scopes: string;
  status: string;
  state: string;
  code_verifier_ciphertext: string;
  next_uri: string | null;
  error: string | null;
  /** Session verification: the flow awaiting the application's confirmation, and its sealed tokens. */
  flow_id: string | null;
  grant_ciphertext: string | null;
  created_at: string;
  updated_at: string;
}

export interface ConnectionTable {
  id: string;
  user_id: string;
  provider_id: string;
  /** JSON array of the scopes granted. */
  scopes: string;
  access_token_ciphertext: string;
  refresh_token_ciphertext: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkerTable {
  id: string;
  type: string;
  enabled: number;
  /** JSON of the worker's settings; its secret only as ciphertext, below. */
  config: string;
  secret_ciphertext: string | null;
  /** JSON array of the toolkits the worker served when last listed; null until then. */
  toolkits: string | null;
  created_at: string;
  updated_at: string;
}

export interface ExecutionTable {
  id: string;
  tool_name: string;
  toolkit_name: string;
  toolkit_version: string;
  user_id: string | null;
  execution_type: string;
  status: string;
  /** JSON of the tool input; of an immediate call, redacted, and `{}` when not kept. */
  input: string;
  run_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Which engine process holds the execution while it runs, and until when. */
  claimed_by: string | null;
  claimed_until: string | null;
  /** Immediate executions: how long the call took, and the error kind when it failed. */
  duration_ms: number | null;
  error_kind: string | null;
  created_at: string;
  updated_at: string;
  /** Scheduled executions: the W3C traceparent of the request that scheduled it, when spans were recorded. */
  trace_parent?: string | null;
  /** Immediate executions: JSON of the result the caller got (`{value}` or `{error}`, no stack), when kept. */
  output?: string | null;
}

export interface AttemptTable {
  id: string;
  execution_id: string;
  started_at: string;
  finished_at: string | null;
  success: number | null;
  system_error_message: string | null;
  /** JSON of the tool's output. */
  output: string | null;
}

export interface SettingTable {
  key: string;
  /** JSON. */
  value: string;
}

/** One object of the authorization server (oidc-provider's models), found by the hash of its id. */
export interface AuthorizationServerObjectTable {
  model: string;
  id_hash: string;
  /** JSON of the object, without its id (for tokens and codes, the id is the secret). */
  payload: string;
  /** The grant an object belongs to; a grant's own id for the grant itself. */
  grant_id: string | null;
  uid_hash: string | null;
  user_code_hash: string | null;
  expires_at: string | null;
  consumed_at: string | null;
  /** Grants: the user (the sign-in's subject) and the client. */
  account_id: string | null;
  client_id: string | null;
  /** The API key a grant or a browser session was signed in with (revoking the key ends them). */
  api_key_id: string | null;
  /** Grants: when one of the grant's access tokens last called the engine. */
  last_used_at: string | null;
}

/** One administrative change: who made it (a key, or the command line), from where, and what changed. */
export interface AuditEventTable {
  id: string;
  occurred_at: string;
  /** A stable dotted name, e.g. `api_key.created` (audit.ts lists them). */
  action: string;
  /** What was changed: its kind (`api_key`, `secret`, `worker`, ...) and its id or name. */
  target_type: string;
  target_id: string | null;
  /** `api_key` or `cli`. */
  actor_type: string;
  actor_key_id: string | null;
  actor_key_prefix: string | null;
  /** The key's name, or for the command line the system user and host. */
  actor_name: string | null;
  actor_role: string | null;
  client_address: string | null;
  request_id: string | null;
  /** JSON of what changed: names, settings and whether a secret was set, never a secret value. */
  change: string;
}

export interface Database {
  api_keys: ApiKeyTable;
  secrets: SecretTable;
  auth_providers: AuthProviderTable;
  authorizations: AuthorizationTable;
  connections: ConnectionTable;
  workers: WorkerTable;
  executions: ExecutionTable;
  attempts: AttemptTable;
  settings: SettingTable;
  authorization_server_objects: AuthorizationServerObjectTable;
  audit_events: AuditEventTable;
}

export type { Generated };
